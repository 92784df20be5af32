/**
 * Items (PATCH /v0/items/{id}): archiving and unarchiving, anchors that block archiving,
 * and what happens to primary external references. The ITEMS family and the item
 * transitions of STATE. Every scenario builds its own item. What one update answer shows
 * (archivedAt against the archived sent, the fields sent, those kept) is the registry's:
 * item-updated, round-trip and partial-updates in src/engine/checks judge the PATCHes sent here.
 * The transitions (STATE.ITEM.ARCHIVE, UNARCHIVE) need the state before: they are judged here.
 */
import { isDeepStrictEqual } from 'node:util';
import { scenario, type ScenarioContext } from '../src/engine/scenario/index.ts';
import type { Exchange } from '../src/engine/types.ts';
import type { BlockedDelete } from '../src/engine/fixtures/types.ts';
import { obj, isDateTime, type Json } from './support.ts';
import {
  checkOnePrimary,
  ITEM,
  otherProduct,
  patchItem,
  readArchived,
  readItem,
  refsOf,
  requireUpdated,
  updated,
} from './support/items.ts';

scenario(
  ['STATE.ITEM.ARCHIVE', 'STATE.ITEM.UNARCHIVE', 'ITEMS.ARCHIVED_AT.STATE', 'ITEMS.ARCHIVED.READABLE'],
  'an item without anchors archives, stays readable, and unarchives',
  async (t) => {
    const { itemId } = await t.fixture((f) => f.item());
    const fresh = await readItem(t, itemId);
    if (fresh.archivedAt !== null && fresh.archivedAt !== undefined) {
      // A pre-seeded item left archived by an interrupted run: start from active.
      t.note(`item ${itemId} was archived at the start; unarchiving it first`);
      requireUpdated(t, await patchItem(t, itemId, { archived: false }), 'unarchiving the pre-seeded item');
    }

    const res = await patchItem(t, itemId, { archived: true });
    const archived = updated(t, 'STATE.ITEM.ARCHIVE', res, 'archiving an item without anchors');
    t.softExpectRule(
      'STATE.ITEM.ARCHIVE',
      archived.id === itemId && isDateTime(archived.archivedAt),
      `the answer is the item, archived (id ${JSON.stringify(archived.id)}, archivedAt ${JSON.stringify(archived.archivedAt)})`,
      res,
    );

    const read = await readArchived(t, itemId);
    t.softExpectRule(
      'ITEMS.ARCHIVED.READABLE',
      read.id === itemId && read.object === ITEM,
      `the archived item still reads back (id ${JSON.stringify(read.id)})`,
    );
    t.softExpectRule(
      'ITEMS.ARCHIVED.READABLE',
      isDateTime(read.archivedAt),
      `it reads as archived (archivedAt ${JSON.stringify(read.archivedAt)})`,
    );
    t.note(
      'ITEMS.ARCHIVED.READABLE: "keeps resolving on historical invoices" is not observable through ' +
        'the documented operations; the item read is judged',
    );

    // An archived item still takes ordinary updates; that it stays archived is the partial-updates check's.
    await patchItem(t, itemId, { metadata: { conform: 'archived-update' } });

    const unarchiving = await patchItem(t, itemId, { archived: false });
    const active = updated(t, 'STATE.ITEM.UNARCHIVE', unarchiving, 'unarchiving');
    t.softExpectRule(
      'STATE.ITEM.UNARCHIVE',
      active.archivedAt === null,
      `the answer is the item, active (archivedAt ${JSON.stringify(active.archivedAt)})`,
      unarchiving,
    );
    const again = await readItem(t, itemId);
    t.softExpectRule(
      'STATE.ITEM.UNARCHIVE',
      again.archivedAt === null,
      `the item reads active again (archivedAt ${JSON.stringify(again.archivedAt)})`,
    );
  },
  { concurrent: true },
);

scenario(
  ['ITEMS.UPDATE.APPLIED'],
  'a name, catalogId and metadata sent in an update are what the item holds afterwards',
  async (t) => {
    const { itemId } = await t.fixture((f) => f.item());
    // "Leaves an active item active" shows only on an item that was active: one handed out archived
    // (a fixtures file's, left so by an earlier holder) is unarchived first.
    if (![null, undefined].includes((await readItem(t, itemId)).archivedAt)) {
      t.note(`item ${itemId} was archived at the start; unarchiving it first`);
      requireUpdated(t, await patchItem(t, itemId, { archived: false }), 'unarchiving the pre-seeded item');
    }
    const active = (await readItem(t, itemId)).archivedAt === null;
    const catalogId = await otherProduct(t);
    const sent: Json = {
      name: `Conform item ${t.target.seed}`,
      metadata: { conform: 'items-update', n: '1' },
      ...(catalogId ? { catalogId } : {}),
    };
    const res = await patchItem(t, itemId, sent);
    const item = updated(t, 'ITEMS.UPDATE.APPLIED#accepted', res, 'renaming the existing item');
    t.expectRule(
      'ITEMS.UPDATE.APPLIED#accepted',
      item.id === itemId,
      `the answer is the item renamed (id ${JSON.stringify(item.id)})`,
      res,
    );
    // The state table moves an item only through `archived`: a rename leaves an active item active.
    if (active)
      t.softExpectRule(
        'ITEMS.UPDATE.APPLIED#keeps-active',
        item.archivedAt === null,
        `an update without archived leaves the active item active (archivedAt ${JSON.stringify(item.archivedAt)})`,
        res,
      );
    else t.ruleNotJudged('ITEMS.UPDATE.APPLIED#keeps-active', `item ${itemId} was not active before the update`);
    // An empty update answers the item as it is: a later read in the stream, where the round-trip
    // check (ITEMS.UPDATE.APPLIED#holds-sent) finds what the rename sent, as it did in its answer.
    requireUpdated(t, await patchItem(t, itemId, {}), 'an empty update of the item');
    // A read through the fixtures, which the registry never sees: it holds what the rename answered.
    const read = await readItem(t, itemId);
    const differs = ['name', 'catalogId', 'metadata', 'archivedAt'].filter(
      (f) => item[f] !== undefined && !isDeepStrictEqual(read[f], item[f]),
    );
    t.softExpectRule(
      'ITEMS.UPDATE.APPLIED#read-back',
      differs.length === 0,
      `a later read holds what the update answered (${differs.map((f) => `${f} reads ${JSON.stringify(read[f])}`).join(', ')})`,
    );
  },
  { concurrent: true },
);

scenario(
  ['ITEMS.UPDATE.PARTIAL'],
  'archiving, unarchiving and a metadata-only update keep the fields they did not send',
  async (t) => {
    const { itemId } = await t.fixture((f) => f.item());
    // A name and metadata of this scenario's own, so that a wipe or a reset shows. Each update
    // follows the answer of the one before: the partial-updates check compares the two answers
    // (the archived state moving with the updates that send it).
    const naming = { name: `Conform kept ${t.target.seed}`, metadata: { conform: 'kept', n: '2' } };
    requireUpdated(t, await patchItem(t, itemId, naming), 'naming the item');
    for (const sent of [{ archived: true }, { archived: false }, { metadata: { conform: 'only-metadata' } }] as Json[])
      requireUpdated(t, await patchItem(t, itemId, sent), `the update ${JSON.stringify(sent)}`);
  },
  { concurrent: true },
);

const ANCHORS: Array<
  [string, (f: Parameters<Parameters<ScenarioContext['fixture']>[0]>[0]) => Promise<BlockedDelete>]
> = [
  ['a fee', (f) => f.itemWithAnchoredFee()],
  ['a live billable metric', (f) => f.itemWithAnchoredMetric()],
];

for (const [what, make] of ANCHORS) {
  scenario(
    ['ITEMS.ARCHIVE.BLOCKED'],
    `archiving an item with ${what} anchored to it is refused`,
    async (t) => {
      const blocked = await t.fixture(make);
      const res = await patchItem(t, blocked.id, { archived: true });
      // The refusal's status is not shown: any 4xx with an Error body (the error-shape check judges the body).
      t.expectRule(
        'ITEMS.ARCHIVE.BLOCKED#refused',
        res.status !== undefined && res.status >= 400 && res.status < 500,
        `archiving is refused with a 4xx, got ${res.status ?? res.transportError}`,
        res,
      );
      t.softExpectRule(
        'ITEMS.ARCHIVE.BLOCKED#refused',
        typeof obj(res.body)?.message === 'string',
        'the refusal is an Error (message)',
        res,
      );
      const read = await readItem(t, blocked.id);
      t.softExpectRule(
        'ITEMS.ARCHIVE.BLOCKED#stays-active',
        read.archivedAt === null,
        `the item stays active (archivedAt ${JSON.stringify(read.archivedAt)})`,
      );
    },
    { concurrent: true },
  );

  scenario(
    ['STATE.ITEM.ARCHIVE', 'ITEMS.ARCHIVE.BLOCKED#refused'],
    `an item archives once ${what} is no longer anchored`,
    async (t) => {
      const blocked = await t.fixture(make);
      const refused = await patchItem(t, blocked.id, { archived: true });
      t.expectRule(
        'ITEMS.ARCHIVE.BLOCKED#refused',
        refused.status !== undefined && refused.status >= 400 && refused.status < 500,
        `archiving is refused while anchored, got ${refused.status ?? refused.transportError}`,
        refused,
      );
      await blocked.removeDependants();
      const res = await patchItem(t, blocked.id, { archived: true });
      const item = updated(t, 'STATE.ITEM.ARCHIVE', res, `archiving once ${what} is gone`);
      t.softExpectRule(
        'STATE.ITEM.ARCHIVE',
        isDateTime(item.archivedAt),
        `archivedAt is set (got ${JSON.stringify(item.archivedAt)})`,
        res,
      );
    },
    { concurrent: true, destructive: true },
  );
}

scenario(
  [
    'ITEMS.ARCHIVE.DEMOTES_PRIMARY',
    'ITEMS.UNARCHIVE.NO_RECLAIM',
    'ITEMS.EXTERNAL_ID.ONE_PRIMARY',
    'ITEMS.ARCHIVED.READABLE',
  ],
  'archiving demotes primary references, which stay attached; unarchiving does not reclaim them',
  async (t: ScenarioContext) => {
    const { itemId, referenceIds } = await t.fixture((f) => f.itemWithPrimaryReference());
    const before = await readItem(t, itemId);
    const primaries = refsOf(before)
      .filter((r) => r.isPrimary === true)
      .map((r) => r.id);
    if (primaries.length === 0)
      t.notJudged(`item ${itemId} holds no primary external reference to demote`, 'fixture-used-up');
    t.precondition(referenceIds.length > 0, `the fixture names the external references of item ${itemId}`);
    checkOnePrimary(t, [before]);

    const res = await patchItem(t, itemId, { archived: true });
    const archived = requireUpdated(t, res, 'archiving the item');
    const views: Array<[string, Json, Exchange | undefined]> = [
      ['the archive answer', archived, res],
      ['the archived item read', await readArchived(t, itemId), undefined],
    ];
    for (const [where, item, ex] of views) {
      const refs = refsOf(item);
      const ids = refs.map((r) => r.id);
      const missing = referenceIds.filter((id) => !ids.includes(id));
      t.softExpectRule(
        'ITEMS.ARCHIVE.DEMOTES_PRIMARY#stays-attached',
        missing.length === 0,
        `${where}: every reference stays attached (missing ${missing.join(', ') || 'none'})`,
        ex,
      );
      // Demotion shows on the references that were primary, where they are still listed.
      const formerly = refs.filter((r) => primaries.includes(r.id));
      if (!formerly.length) continue;
      const stillPrimary = formerly.filter((r) => r.isPrimary === true).map((r) => r.id);
      t.softExpectRule(
        'ITEMS.ARCHIVE.DEMOTES_PRIMARY#demotes',
        stillPrimary.length === 0,
        `${where}: no reference is primary any more (still primary: ${stillPrimary.join(', ') || 'none'})`,
        ex,
      );
    }
    t.softExpectRule(
      'ITEMS.ARCHIVED.READABLE',
      views[1][1].id === itemId,
      'the archived item reads back with its references',
    );

    const back = requireUpdated(t, await patchItem(t, itemId, { archived: false }), 'unarchiving the item');
    const after = await readItem(t, itemId);
    for (const [where, item] of [
      ['the unarchive answer', back],
      ['the unarchived item read', after],
    ] as const) {
      const refs = refsOf(item);
      // Reclaiming shows on the references that were primary, where they are listed (a lost one fails below).
      const formerly = refs.filter((r) => primaries.includes(r.id));
      const reclaimed = formerly.filter((r) => r.isPrimary === true).map((r) => r.id);
      if (formerly.length)
        t.softExpectRule(
          'ITEMS.UNARCHIVE.NO_RECLAIM',
          reclaimed.length === 0,
          `${where}: primary status is not reclaimed (primary again: ${reclaimed.join(', ') || 'none'})`,
        );
      const missing = referenceIds.filter((id) => !refs.some((r) => r.id === id));
      t.softExpectRule(
        'ITEMS.UNARCHIVE.NO_RECLAIM',
        missing.length === 0,
        `${where}: the references are still attached (missing ${missing.join(', ') || 'none'})`,
      );
    }
    for (const item of [archived, after]) checkOnePrimary(t, [item]);
  },
  { concurrent: true },
);

scenario(
  ['ITEMS.EXTERNAL_ID.ONE_PRIMARY'],
  'an external id claimed as primary by a second item is primary on at most one of them',
  async (t: ScenarioContext) => {
    const { itemIds, externalId } = await t.fixture((f) => f.externalIdClaimedTwice());
    const items = [await readItem(t, itemIds[0]), await readItem(t, itemIds[1])];
    const holders = items
      .filter((item) => refsOf(item).some((r) => r.externalId === externalId && r.isPrimary === true))
      .map((item) => item.id);
    // No holder at all shows nothing about "at most one".
    t.precondition(holders.length > 0, `an item holds external id ${externalId} as primary`);
    t.softExpectRule(
      'ITEMS.EXTERNAL_ID.ONE_PRIMARY',
      holders.length <= 1,
      `external id ${externalId} is primary on at most one item (primary on ${holders.join(', ') || 'none'})`,
    );
    checkOnePrimary(t, items);
    t.note(
      'ITEMS.EXTERNAL_ID.ONE_PRIMARY: whether the second claim is refused or moves the primary status is not shown; either passes',
    );
  },
  { concurrent: true },
);
