import { describe, expect, it } from 'vitest';
import { catalogSection } from '../../scripts/faults-doc.ts';

const result = (over: Record<string, unknown>) => ({
  name: 'f',
  area: 'items',
  benign: false,
  description: 'does a | b',
  expectedRules: ['ITEMS.X'],
  suites: ['items'],
  outcome: 'caught',
  rulesFired: ['OTHER.Y', 'ITEMS.X'],
  expectedFired: ['ITEMS.X'],
  durationMs: 8123,
  ...over,
});

describe('scripts/faults-doc catalogSection', () => {
  const md = catalogSection([
    result({}),
    result({ name: 'g', outcome: 'missed', rulesFired: [], expectedFired: [] }),
    result({
      name: 'b',
      area: 'conventions',
      benign: true,
      outcome: 'flagged',
      suites: [],
      rulesFired: ['CONV.Z'],
      expectedFired: [],
    }),
    result({ name: 'c', area: 'conventions', benign: true, outcome: 'passed', rulesFired: [], expectedFired: [] }),
  ]);

  it('counts faults and benign variants per area, with totals', () => {
    expect(md).toContain('| items | 2 | 0 |');
    expect(md).toContain('| conventions | 0 | 2 |');
    expect(md).toContain('| **total** | **2** | **2** |');
  });

  it('one row per entry: expected rules fired first, pipes escaped, misses and flags stand out', () => {
    expect(md).toContain('| f | items | does a \\| b | ITEMS.X | items | yes | ITEMS.X, OTHER.Y | 8.1 s |');
    expect(md).toContain('| g | items | does a \\| b | ITEMS.X | items | **MISSED** | - | 8.1 s |');
    expect(md).toContain('| b | conventions | does a \\| b | - | all | **FLAGGED** | CONV.Z | 8.1 s |');
    expect(md).toContain('| c | conventions | does a \\| b | - | items | not flagged | - | 8.1 s |');
  });
});
