#!/usr/bin/env python3
"""
Fixtures for a sandbox that has only the documented endpoints, served to the conformance
engine over the `command` protocol (version 1): one JSON object per line each way, the
engine's requests on stdin, one answer per request on stdout (docs/fixtures.md, section
"`command`: fixtures in any language"). A port of examples/sandbox/conform.fixtures.ts:
the same 36 methods, the same back-office calls and bodies, the same checks, the same
"once per run" memos and the same cleanup at close.

Every resource the scenarios need is created through a back-office (admin) API whose base
URL is CONFORM_ADMIN_URL, while the suites talk to the sandbox (hello's `baseUrl`).

THE PART YOU REPLACE: the back office. Every call to it goes through the `Admin` class
below (`a.post`, `a.get`, `a.send`), and each fixture method's docstring names its calls
("Back office:"). Here the reference server's extension endpoints (`x-extension: reference`
in spec/openapi.yaml, what `conform serve` answers on its full port) stand in for them;
replace each with your own. What each method must deliver stays (docs/fixtures.md has the
method reference and the rules each one unlocks).

Every method returns a fresh resource per call, so concurrent scenarios never share a
mutable one and the suite can run again and again against the same sandbox. A method that
cannot deliver raises FixtureUnavailable: its answer is `unavailable` and its scenario is
not judged, with that reason (never failed).

  CONFORM_ADMIN_URL       the back office (required)
  CONFORM_ADMIN_KEY       its credential (required: the sandbox's own key is never sent to a second host)
  CONFORM_KEEP_FIXTURES   set: what the run created stays (to replay a failure on it); else removed at close

Standard library only; Python 3.9+. stdout carries protocol lines only; logs go to stderr.
"""
import datetime
import json
import os
import secrets
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import Future, ThreadPoolExecutor

PROTOCOL = 1
WORKERS = 8
TIMEOUT_S = 30.0
DAY = datetime.timedelta(days=1)
# The document's retry rule for 429 (RETRY.CLIENT.*): at most 5 attempts, waiting retry-after
# seconds, or 1 s doubled on each further rejection; never more than 120 s.
MAX_ATTEMPTS = 5
MAX_RETRY_WAIT_S = 120.0


def log(message):
    sys.stderr.write(f"conform_fixtures: {message}\n")
    sys.stderr.flush()


class FixtureUnavailable(Exception):
    """The fixture cannot be delivered: its scenario is not judged, with `reason` (never failed)."""

    def __init__(self, fixture, reason):
        super().__init__(f"fixture '{fixture}' unavailable: {reason}")
        self.fixture = fixture
        self.reason = reason


def enc(value):
    """encodeURIComponent: a path segment percent-encoded."""
    return urllib.parse.quote("undefined" if value is None else str(value), safe="-_.!~*'()")


def tag(prefix="conform"):
    return f"{prefix}-{secrets.token_hex(6)}"


def today():
    """The start of the current UTC day: test clocks start here, so billing periods are whole days."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def iso(moment):
    """Date.prototype.toISOString: UTC, milliseconds, `Z`."""
    utc = moment.astimezone(datetime.timezone.utc)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def days_after(timestamp, days):
    """`days` whole days after an ISO timestamp this program wrote (new Date(Date.parse(t) + days * DAY_MS))."""
    start = datetime.datetime.fromtimestamp(parse_time(timestamp) / 1000, datetime.timezone.utc)
    return iso(start + days * DAY)


def parse_time(value):
    """Date.parse of an ISO 8601 timestamp, as epoch milliseconds; None where it is not one (NaN)."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    date, sep, clock = text.partition("T")
    if sep and "." in clock:
        # fromisoformat (3.9) takes 3 or 6 fraction digits only: pad or cut to 6.
        head, _, rest = clock.partition(".")
        digits = ""
        while rest and rest[0].isdigit():
            digits, rest = digits + rest[0], rest[1:]
        clock = f"{head}.{(digits + '000000')[:6]}{rest}"
        text = f"{date}T{clock}"
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        # Date.parse reads a date-time without an offset as local time, a date alone as UTC.
        moment = moment.replace(tzinfo=datetime.timezone.utc) if not sep else moment.astimezone()
    return round(moment.timestamp() * 1000)


def field(obj, name):
    """obj[name] where obj is a JSON object holding it, else None (a missing field reads undefined)."""
    return obj.get(name) if isinstance(obj, dict) else None


def defined(**fields):
    """A JSON object of the fields that are not None (JSON.stringify leaves out undefined ones)."""
    return {k: v for k, v in fields.items() if v is not None}


# --- the protocol's output ------------------------------------------------------------


class Out:
    """stdout: one JSON object per line, whole lines only (a lock), flushed after each."""

    def __init__(self, stream):
        self.stream = stream
        self.lock = threading.Lock()

    def write(self, obj):
        line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self.lock:
            try:
                self.stream.write(line.encode("utf-8"))
                self.stream.flush()
            except (BrokenPipeError, ValueError, OSError) as err:
                log(f"stdout is closed ({err}): an answer was lost")

    def secret(self, value):
        """A secret this program made: announced before any answer could show it (ctx.registerSecret)."""
        if isinstance(value, str) and value:
            self.write({"secret": value})


# --- THE BACK OFFICE (replace it) -------------------------------------------------------


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A 3xx is an answer like any other (the engine's client follows no redirect)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_opener = urllib.request.build_opener(_NoRedirect())


def _transport_error(err):
    """What a request that got no complete answer says, as the engine's client words it."""
    reason = getattr(err, "reason", err)
    if isinstance(reason, (socket.timeout, TimeoutError)):
        return f"no complete response within {int(TIMEOUT_S * 1000)} ms (timeout)"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused (nothing listening at the target)"
    if isinstance(reason, (ConnectionResetError, BrokenPipeError, ConnectionAbortedError)):
        return "connection reset by the target before a complete response"
    if isinstance(reason, socket.gaierror):
        return "DNS lookup of the target host failed"
    text = " ".join(str(reason).split())
    return f"transport error: {text}"


class BackOffice:
    """What every Admin view shares: where it is, its credential, the undo list, whether a call reached it."""

    def __init__(self, base_url, bearer, url_label):
        self.base = base_url if base_url.endswith("/") else base_url + "/"
        self.bearer = bearer
        self.url_label = url_label
        self.undo = []  # (method, path, body): what close() sends, in reverse
        self.lock = threading.Lock()
        self.reached = False

    def exchange(self, method, path, body=None, query=None, key=None):
        """One request (429s retried as the document says): (status, body, raw text, transport error)."""
        url = urllib.parse.urljoin(self.base, path.lstrip("/"))
        if query:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(
                [(k, str(v)) for k, v in query.items() if v is not None]
            )
        headers = {"accept": "application/json", "authorization": f"Bearer {key or self.bearer}"}
        data = None
        if body is not None:
            headers["content-type"] = "application/json"
            data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        rejections = 0
        while True:
            status, parsed, raw, transport, retry_after = self._once(method, url, headers, data)
            if status != 429:
                return status, parsed, raw, transport
            rejections += 1
            if rejections >= MAX_ATTEMPTS:
                return status, parsed, raw, transport
            try:
                wait = float(retry_after) if retry_after is not None else None
            except ValueError:
                wait = None
            if wait is None:
                wait = 2.0 ** (rejections - 1)
            time.sleep(min(max(wait, 0.0), MAX_RETRY_WAIT_S))

    @staticmethod
    def _once(method, url, headers, data):
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        status, raw, retry_after = None, b"", None
        try:
            with _opener.open(req, timeout=TIMEOUT_S) as res:
                status = res.status
                retry_after = res.headers.get("retry-after")
                raw = res.read()
        except urllib.error.HTTPError as err:
            status = err.code
            retry_after = err.headers.get("retry-after") if err.headers else None
            try:
                raw = err.read()
            except Exception as read_err:  # noqa: BLE001 - a body cut short is still the answer's status
                return status, None, "", _transport_error(read_err), retry_after
        except Exception as err:  # noqa: BLE001 - every failure to get an answer is a transport error
            return status, None, "", _transport_error(err), retry_after
        text = raw.decode("utf-8", errors="replace")
        parsed = None
        if text.strip():
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
        return status, parsed, text, None, retry_after


class Admin:
    """THE BACK OFFICE (replace it): one request, the 2xx body back, anything else FixtureUnavailable naming it."""

    def __init__(self, office, fixture):
        self.office = office
        self.fixture = fixture

    def for_(self, fixture):
        """The same back office, naming `fixture` in its refusals (what was created is still undone by close())."""
        return Admin(self.office, fixture)

    def send(self, method, path, body=None, query=None, key=None):
        o = self.office
        status, parsed, raw, transport = o.exchange(method, path, body, query, key)
        # A 2xx whose body was cut off (a timeout mid-answer) is no answer: building on {} would hand out no key.
        if status is not None and 200 <= status < 300 and not transport:
            o.reached = True
            return {} if parsed is None else parsed
        message = field(parsed, "message")
        why = transport or f"{status} {raw[:200] if message is None else message}"
        call = f"{method} {path.split('?')[0]} with {why}"
        # No call has reached the back office yet, and this one found no route or no server: the URL is
        # what is wrong, so every fixture says the same one line (the run groups identical reasons).
        if not o.reached and (transport or status in (404, 405)):
            how = transport.replace("(", ":").split(":")[0].strip() if transport else f"HTTP {status}"
            raise FixtureUnavailable(
                self.fixture,
                f"no call reached the back office at {o.url_label} ({how}): is it your back office's base URL?",
            )
        raise FixtureUnavailable(self.fixture, f"the back office answered {call}")

    def post(self, path, body=None):
        return self.send("POST", path, {} if body is None else body)

    def get(self, path, query=None):
        return self.send("GET", path, None, query)

    def later(self, method, path, body=None):
        """Remembers how to remove something just created; close() sends these in reverse, best effort."""
        with self.office.lock:
            self.office.undo.append((method, path, body))

    def cleanup(self):
        while True:
            with self.office.lock:
                if not self.office.undo:
                    return
                method, path, body = self.office.undo.pop()
            try:
                self.send(method, path, body)
            except Exception:  # noqa: BLE001 - best effort: already gone, still in use, unreachable
                pass

    def kept(self):
        """What cleanup() would send, in its order, without sending it (the run keeps what it made)."""
        with self.office.lock:
            steps = list(reversed(self.office.undo))
            self.office.undo.clear()
        return [defined(method=m, path=p, body=b) for m, p, b in steps]


# --- the fixtures ---------------------------------------------------------------------


class Fixtures:
    """The 36 fixture methods (names as the protocol calls them), their building blocks and close()."""

    METHODS = (
        "merchant",
        "secondKeySameMerchant",
        "otherMerchantKey",
        "merchantWithoutWebhooks",
        "unmanagedMerchant",
        "revokedKey",
        "forbiddenAction",
        "webhooksEnabled",
        "webhookEndpoints",
        "customer",
        "customerWithSubscriptions",
        "feeWithPrices",
        "feeWithoutPrices",
        "item",
        "itemWithAnchoredFee",
        "itemWithAnchoredMetric",
        "itemWithPrimaryReference",
        "externalIdClaimedTwice",
        "readItem",
        "migration",
        "migrationConflict",
        "readSubscription",
        "advancePastBoundary",
        "wallet",
        "walletWithAlerts",
        "order",
        "scheduleWithIntervals",
        "subscription",
        "subscriptions",
        "paidInvoice",
        "unrefundableInvoice",
        "payment",
        "invoiceLineItemsBody",
        "prices",
        "sourceRule",
        "crmProvider",
    )

    def __init__(self, out, admin_url, admin_key):
        self.out = out
        # The back office gets a credential of its own, never the sandbox key: a secret goes only
        # where it was sent on purpose.
        self.root = Admin(BackOffice(admin_url, admin_key, f"CONFORM_ADMIN_URL ({admin_url})"), "fixtures")
        self.memo = {}
        self.memo_lock = threading.Lock()
        # (method, id it returned) -> what removeDependants does for it.
        self.removals = {}
        self.removals_lock = threading.Lock()
        # From hello: the sandbox and its primary key (no method here calls the sandbox itself).
        self.base_url = None
        self.api_key = None

    def once(self, key, make):
        """One shared value per key for the run; concurrent callers wait for the first; a failure is not kept."""
        with self.memo_lock:
            fut = self.memo.get(key)
            mine = fut is None
            if mine:
                fut = self.memo[key] = Future()
        if mine:
            try:
                fut.set_result(make())
            except BaseException as err:  # noqa: BLE001 - handed to every waiter
                with self.memo_lock:
                    self.memo.pop(key, None)
                fut.set_exception(err)
        return fut.result()

    # --- building blocks -----------------------------------------------------------

    def _key(self, a, body):
        k = a.post("/v0/apiKeys", body)
        if not isinstance(field(k, "secret"), str) or not isinstance(field(k, "id"), str):
            raise FixtureUnavailable(a.fixture, "the back office answered POST /v0/apiKeys with no id and secret")
        self.out.secret(k["secret"])
        a.later("DELETE", f"/v0/apiKeys/{enc(k['id'])}")
        return k

    def _merchant_id(self):
        def make():
            # An API key names its merchant: create one, read it, revoke it.
            a = self.root.for_("merchant")
            k = self._key(a, {"name": "conform merchant lookup"})
            a.send("DELETE", f"/v0/apiKeys/{enc(k['id'])}")
            if not isinstance(k.get("merchantId"), str):
                raise FixtureUnavailable("merchant", "the back office answered POST /v0/apiKeys with no merchantId")
            return k["merchantId"]

        return self.once("merchant", make)

    def _product(self):
        def make():
            a = self.root.for_("product")
            body = {"name": f"Conform {tag()}", "description": "conform fixtures", "merchantId": self._merchant_id()}
            return field(a.post("/v0/products", body), "id")

        return self.once("product", make)

    def _customer(self, a):
        c = a.post("/v0/customers", {"name": f"Conform {tag()}", "email": f"{tag()}@conform.invalid"})
        a.later("DELETE", f"/v0/customers/{enc(field(c, 'id'))}")
        return field(c, "id")

    def _fee(self, a, extra=None):
        name = f"Conform fee {tag()}"
        f = a.post("/v0/fees", {"productId": self._product(), "name": name, "invoiceDisplayName": name, **(extra or {})})
        a.later("DELETE", f"/v0/fees/{enc(field(f, 'id'))}")
        return field(f, "id")

    def _price(self, a, fee_id, unit_price=None, tiers=None, pricing_unit_id=None):
        """A monthly fee price paid in advance: standard at `unit_price`, or volume with `tiers`."""
        body = {
            "feeId": fee_id,
            "model": "volume" if tiers else "standard",
            "currency": "USD",
            "properties": {"tiers": tiers} if tiers else {"unitPrice": unit_price or "10.00"},
            "cadence": "P1M",
            "paymentTerm": "in_advance",
        }
        if not tiers:
            body["quantity"] = 1
        if pricing_unit_id:
            body["pricingUnitId"] = pricing_unit_id
        created = a.post("/v0/prices", body)
        a.later("DELETE", f"/v0/prices/{enc(field(created, 'id'))}")
        return field(created, "id")

    def _prices(self, a, unit_prices):
        """A fresh fee with a price per unit price: their ids in the same order."""
        fee_id = self._fee(a)
        return [self._price(a, fee_id, unit_price=u) for u in unit_prices]

    def _metric(self, a, extra=None):
        m = a.post(
            "/v0/billableMetrics",
            {"name": f"Conform metric {tag()}", "unit": "call", "productId": self._product(), **(extra or {})},
        )
        a.later("DELETE", f"/v0/billableMetrics/{enc(field(m, 'id'))}")
        return field(m, "id")

    def _metric_price(self, a, billable_metric_id, unit_price, unit_basis=None):
        """A standard price of a billable metric (metered, in arrears), its rate an amount per unit or a proportion."""
        body = {
            "billableMetricId": billable_metric_id,
            "model": "standard",
            "currency": "USD",
            "properties": {"unitPrice": unit_price},
            "paymentTerm": "in_arrears",
        }
        if unit_basis:
            body["unitBasis"] = unit_basis
        created = a.post("/v0/prices", body)
        a.later("DELETE", f"/v0/prices/{enc(field(created, 'id'))}")
        return field(created, "id")

    def _pricing_unit(self, a):
        return field(a.post("/v0/pricingUnits", {"name": f"Conform credits {tag()}"}), "id")

    def _item(self, a, product_id):
        body = {"name": f"Conform item {tag()}", "catalogId": product_id, "metadata": {"conform": True}}
        return field(a.post("/v0/items", body), "id")

    def _plan(self, a, versions):
        """A plan publishing each version in order (1, 2, ...); versions marked `archive` are archived afterwards."""
        p = a.post(
            "/v0/plans",
            {"productId": self._product(), "name": f"Conform plan {tag()}", "billingCadence": "P1M", "currency": "USD"},
        )
        plan_id = field(p, "id")
        by_version = {}
        for v in versions:
            body = {k: val for k, val in v.items() if k != "archive"}
            created = a.post(f"/v0/plans/{enc(plan_id)}/versions", body)
            by_version[str(field(created, "versionNumber"))] = v["priceIds"]
        for i, v in enumerate(versions):
            if v.get("archive"):
                a.post(f"/v0/plans/{enc(plan_id)}/versions/{i + 1}/archive")
        return {"planId": plan_id, "pricesByVersion": by_version}

    def _subscribe(self, a, body):
        s = a.post("/v0/subscriptions", body)
        a.later("POST", f"/v0/subscriptions/{enc(field(s, 'id'))}/cancel", {"reason": "conform fixtures cleanup"})
        return field(s, "id")

    def _simple_plan(self):
        def make():
            a = self.root.for_("subscription")
            return self._plan(a, [{"priceIds": self._prices(a, ["15.00"])}])["planId"]

        return self.once("simplePlan", make)

    def _live_subscriptions(self, a, count):
        plan_id, customer_id = self._simple_plan(), self._customer(a)
        ids = []
        i = 0
        while i < count:
            ids.append(self._subscribe(a, {"customerId": customer_id, "planId": plan_id}))
            i += 1
        return ids

    def _read_subscription(self, a, subscription_id):
        return a.get(f"/v0/subscriptions/{enc(subscription_id)}")

    def _order(self, a, customer_id, line_items):
        return field(a.post("/v0/orders", {"customerId": customer_id, "lineItems": line_items}), "id")

    def _schedule(self, a, body):
        s = a.post("/v0/billingSchedules", body)
        a.later("DELETE", f"/v0/billingSchedules/{enc(field(s, 'id'))}")
        return field(s, "id")

    def _draft_invoice(self, a, line_items):
        return a.post("/v2/invoices", {"customerId": self._customer(a), "currency": "USD", "lineItems": line_items})

    def _wallet(self, a):
        return field(a.post("/v0/wallets", {"customerId": self._customer(a), "currency": "USD"}), "id")

    def _clocked(self, a, versions, sub=None):
        """
        A subscription on a fresh plan and its own test clock (frozen at the start of the day),
        for a fresh customer; read back so that its current period is known.
        """
        t0 = iso(today())
        built = self._plan(a, versions)
        test_clock_id = field(a.post("/v0/testClocks", {"frozenTime": t0, "name": tag()}), "id")
        customer_id = self._customer(a)
        sub_id = self._subscribe(
            a,
            {
                "customerId": customer_id,
                "planId": built["planId"],
                "testClockId": test_clock_id,
                "startedAt": t0,
                **(sub or {}),
            },
        )
        read = self._read_subscription(a, sub_id)
        if field(read, "status") != "active" or not isinstance(field(read, "currentPeriodEnd"), str):
            raise FixtureUnavailable("migration", f"subscription {sub_id} is not live with a current period")
        return {**built, "t0": t0, "testClockId": test_clock_id, "customerId": customer_id, "sub": read}

    def _migration(self, a, policy):
        """
        Plan versions 1 (archived), 2 (older), 3 (the default, current), 4 (newer), one monthly
        price each plus a second fee only version 3 sells; every version carries the same metered
        feature, version 4 one more. The subscription keeps overrides on both of version 3's
        prices, ends 800 days out, and its customer has two billing schedules that are no 409
        condition: one selling versions 2 and 4's prices that ends at the boundary, one selling
        version 3's second price for 180 days.
        """
        p1, p2, p3, p4 = self._prices(a, ["10.00", "20.00", "30.00", "40.00"])
        (extra,) = self._prices(a, ["5.00"])
        seats = {"key": "conform_seats", "resetPeriod": "P1M", "billableMetricId": self._metric(a)}
        calls = {"key": "conform_calls", "resetPeriod": "P1M", "billableMetricId": self._metric(a)}
        sub_body = {"versionNumber": 3} if policy == "pinned" else {}
        sub_body["endingAt"] = iso(today() + 800 * DAY)
        sub_body["overrides"] = [{"priceId": p3, "unitPrice": "27.50"}, {"priceId": extra, "unitPrice": "4.50"}]
        made = self._clocked(
            a,
            [
                {"priceIds": [p1], "features": [seats], "archive": True},
                {"priceIds": [p2], "features": [seats]},
                {"priceIds": [p3, extra], "features": [seats], "makeDefault": True},
                {"priceIds": [p4], "features": [seats, calls]},
            ],
            sub_body,
        )
        sub, customer_id, t0 = made["sub"], made["customerId"], made["t0"]

        def line(price_id):
            return {"description": "Conform scheduled line", "quantity": 1, "unitPrice": "1.00", "priceId": price_id}

        self._schedule(
            a,
            {
                "orderId": self._order(a, customer_id, [line(p2), line(p4)]),
                "startDate": t0,
                "endDate": sub["currentPeriodEnd"],
            },
        )
        self._schedule(
            a,
            {
                "orderId": self._order(a, customer_id, [line(extra)]),
                "startDate": t0,
                "endDate": days_after(t0, 180),
            },
        )
        return {
            "subscriptionId": sub.get("id"),
            "planId": made["planId"],
            "versionPolicy": policy,
            "currentVersionNumber": 3,
            "olderVersionNumbers": [2],
            "newerVersionNumbers": [4],
            "archivedVersionNumber": 1,
            "missingVersionNumber": 1000,
            "currentPeriodEnd": sub["currentPeriodEnd"],
            "pricesByVersion": made["pricesByVersion"],
        }

    def _conflict(self, a, kind):
        """A subscription on version 1 whose migration to version 2 meets one 409 condition of the document."""

        def two_versions(sub=None):
            p1, p2 = self._prices(a, ["10.00", "20.00"])
            return self._clocked(a, [{"priceIds": [p1]}, {"priceIds": [p2]}], sub)

        if kind == "notLive":
            sub = two_versions()["sub"]
            a.post(f"/v0/subscriptions/{enc(sub.get('id'))}/cancel", {"reason": "conform: not live"})
            return sub.get("id")
        if kind == "endsBeforeBoundary":
            return two_versions({"endingAt": iso(today() + 10 * DAY)})["sub"].get("id")
        if kind == "endsAtBoundary":
            # The boundary is learnt from a first subscription on the same plan and clock.
            first = two_versions()
            return self._subscribe(
                a,
                {
                    "customerId": self._customer(a),
                    "planId": first["planId"],
                    "testClockId": first["testClockId"],
                    "startedAt": first["t0"],
                    "endingAt": first["sub"]["currentPeriodEnd"],
                },
            )
        if kind in ("overrideRateMeaning", "overridePricingUnitChange"):
            # The override keeps its rate on the fee's version-2 price: volume-priced, or drawing down a credit pool.
            fee_id = self._fee(a)
            usd = self._price(a, fee_id, unit_price="10.00")
            if kind == "overrideRateMeaning":
                nxt = self._price(
                    a, fee_id, tiers=[{"unitPrice": "9.00", "upTo": "100"}, {"unitPrice": "8.00", "upTo": None}]
                )
            else:
                nxt = self._price(a, fee_id, unit_price="10.00", pricing_unit_id=self._pricing_unit(a))
            made = self._clocked(
                a, [{"priceIds": [usd]}, {"priceIds": [nxt]}], {"overrides": [{"priceId": usd, "unitPrice": "7.50"}]}
            )
            return made["sub"].get("id")
        if kind == "overrideUnitBasisChange":
            # Version 1 charges an amount per unit of a metric; version 2 prices the same metric as a
            # proportion (0.02 is 2 %), where the kept override 0.75 would read as 75 %.
            metric_id = self._metric(a)
            amount = self._metric_price(a, metric_id, "1.00")
            proportion = self._metric_price(a, metric_id, "0.02", "proportion")
            made = self._clocked(
                a,
                [{"priceIds": [amount]}, {"priceIds": [proportion]}],
                {"overrides": [{"priceId": amount, "unitPrice": "0.75"}]},
            )
            return made["sub"].get("id")
        if kind in ("featureChange", "featureMetricChange", "featurePricingUnitChange"):
            # One feature key; version 2 changes its reset period, its metric or its pricing unit.
            p1, p2 = self._prices(a, ["10.00", "20.00"])
            m1 = self._metric(a)
            f1 = {"key": "conform_feature", "resetPeriod": "P1M", "billableMetricId": m1}
            if kind == "featurePricingUnitChange":
                f1["pricingUnitId"] = self._pricing_unit(a)
            if kind == "featureChange":
                f2 = {**f1, "resetPeriod": "P1Y"}
            elif kind == "featureMetricChange":
                f2 = {**f1, "billableMetricId": self._metric(a)}
            else:
                f2 = {**f1, "pricingUnitId": self._pricing_unit(a)}
            made = self._clocked(
                a, [{"priceIds": [p1], "features": [f1]}, {"priceIds": [p2], "features": [f2]}]
            )
            return made["sub"].get("id")
        if kind == "priceCoveredByInterval":
            # An order of the same customer bills version 2's price on a schedule running past the boundary.
            p1, p2 = self._prices(a, ["10.00", "20.00"])
            made = self._clocked(a, [{"priceIds": [p1]}, {"priceIds": [p2]}])
            order_id = self._order(
                a,
                made["customerId"],
                [{"description": "Conform covered price", "quantity": 1, "unitPrice": "20.00", "priceId": p2}],
            )
            self._schedule(
                a, {"orderId": order_id, "startDate": made["t0"], "endDate": days_after(made["t0"], 180)}
            )
            return made["sub"].get("id")
        raise FixtureUnavailable("migrationConflict", f"no recipe for conflict kind '{kind}'")

    def _billed_from(self, a, subscription_id, boundary):
        """The price ids of invoice lines of the subscription whose period starts at `boundary`."""
        page = a.get("/v2/invoices", {"subscriptionId": subscription_id, "limit": 100})
        at = parse_time(boundary)
        billed = []
        for inv in page["data"]:
            for line in field(inv, "lineItems") or []:
                price_id = field(line, "priceId")
                start = parse_time(field(line, "periodStart"))
                if price_id and at is not None and start == at and price_id not in billed:
                    billed.append(price_id)
        return billed

    def _blocked(self, method, resource_id, dependants, remove):
        """A blocked delete: the answer carries id and dependants; removeDependants(method, id) runs `remove`."""
        with self.removals_lock:
            self.removals[(method, resource_id)] = remove
        return {"id": resource_id, "dependants": dependants}

    def remove_dependants(self, method, resource_id):
        with self.removals_lock:
            remove = self.removals.get((method, resource_id))
        if remove is None:
            raise LookupError(f"no blocked delete of {method} with id {resource_id!r} was handed out by this program")
        remove()
        return None

    # --- the fixtures --------------------------------------------------------------

    def merchant(self):
        """
        The primary key's merchant: a throwaway key names it (created, read, revoked; once per run).
        Back office: POST /v0/apiKeys, DELETE /v0/apiKeys/{id}
        """
        return {"merchantId": self._merchant_id()}

    def secondKeySameMerchant(self):
        """
        A second API key of the primary merchant.
        Back office: POST /v0/apiKeys
        """
        k = self._key(self.root.for_("secondKeySameMerchant"), {"name": "conform second key"})
        return {"key": k["secret"], "merchantId": k.get("merchantId")}

    def otherMerchantKey(self):
        """
        A fresh merchant and a key of it: a fresh rate-limit bucket per call.
        Back office: POST /v0/merchants, POST /v0/apiKeys
        """
        a = self.root.for_("otherMerchantKey")
        m = a.post("/v0/merchants", {"name": f"Conform {tag()}", "email": f"{tag()}@conform.invalid"})
        k = self._key(a, {"name": "conform other merchant", "merchantId": field(m, "id")})
        return {"key": k["secret"], "merchantId": field(m, "id")}

    def merchantWithoutWebhooks(self):
        """
        A fresh merchant whose webhooks were never enabled, and a key of it.
        Back office: POST /v0/merchants, POST /v0/apiKeys
        """
        a = self.root.for_("merchantWithoutWebhooks")
        m = a.post("/v0/merchants", {"name": f"Conform {tag()}", "email": f"{tag()}@conform.invalid"})
        k = self._key(a, {"name": "conform no webhooks", "merchantId": field(m, "id")})
        return {"key": k["secret"], "merchantId": field(m, "id")}

    def unmanagedMerchant(self):
        """
        A merchant the primary key may not manage: created by a middle merchant with that merchant's own key, its
        webhooks enabled. Once per run.
        Back office: POST /v0/merchants, POST /v0/apiKeys, POST /v0/webhooks
        """

        def make():
            a = self.root.for_("unmanagedMerchant")
            middle = a.post("/v0/merchants", {"name": f"Conform {tag()}", "email": f"{tag()}@conform.invalid"})
            middle_key = self._key(a, {"name": "conform middle merchant", "merchantId": field(middle, "id")})["secret"]
            m = a.send(
                "POST",
                "/v0/merchants",
                {"name": f"Conform {tag()}", "email": f"{tag()}@conform.invalid"},
                key=middle_key,
            )
            k = a.send(
                "POST",
                "/v0/apiKeys",
                {"name": "conform unmanaged merchant", "merchantId": field(m, "id")},
                key=middle_key,
            )
            if not isinstance(field(k, "secret"), str):
                raise FixtureUnavailable("unmanagedMerchant", "the back office answered POST /v0/apiKeys with no secret")
            self.out.secret(k["secret"])
            a.send(
                "POST",
                "/v0/webhooks",
                {"endpoints": [{"url": "https://hooks.conform.invalid/unmanaged", "eventTypes": ["invoice.paid"]}]},
                key=k["secret"],
            )
            return {"key": k["secret"], "merchantId": field(m, "id")}

        return self.once("unmanagedMerchant", make)

    def revokedKey(self):
        """
        An API key, revoked (401 expected).
        Back office: POST /v0/apiKeys, DELETE /v0/apiKeys/{id}
        """
        a = self.root.for_("revokedKey")
        k = self._key(a, {"name": "conform revoked key"})
        a.send("DELETE", f"/v0/apiKeys/{enc(k['id'])}")
        return k["secret"]

    def forbiddenAction(self):
        """
        A read-only key and a PATCH of a customer it may not make (403 expected).
        Back office: POST /v0/apiKeys (scope read_only), POST /v0/customers
        """
        a = self.root.for_("forbiddenAction")
        k = self._key(a, {"name": "conform read-only key", "scope": "read_only"})
        return {
            "key": k["secret"],
            "method": "PATCH",
            "path": f"/v0/customers/{enc(self._customer(a))}",
            "body": {"externalId": "conform-forbidden"},
        }

    def webhooksEnabled(self):
        """
        The primary merchant's webhooks enabled with one endpoint, and its endpoints.
        Back office: POST /v0/webhooks, PATCH /v0/webhooks, GET /v0/webhooks/endpoints
        """
        a = self.root.for_("webhooksEnabled")
        cfg = a.post(
            "/v0/webhooks",
            {
                "endpoints": [
                    {
                        "url": "https://hooks.conform.invalid/billing",
                        "eventTypes": ["invoice.paid", "subscription.updated"],
                    }
                ]
            },
        )
        if field(cfg, "enabled") is not True:
            a.send("PATCH", "/v0/webhooks", {"enabled": True})
        merchant_id = field(cfg, "merchantId")
        if merchant_id is None:
            merchant_id = self._merchant_id()
        return defined(merchantId=merchant_id, endpoints=field(a.get("/v0/webhooks/endpoints"), "data"))

    def webhookEndpoints(self):
        """
        The primary merchant's webhook endpoints and their event subscriptions.
        Back office: GET /v0/webhooks/endpoints
        """
        return field(self.root.for_("webhookEndpoints").get("/v0/webhooks/endpoints"), "data")

    def customer(self):
        """
        A fresh customer of the primary merchant.
        Back office: POST /v0/customers
        """
        return {"customerId": self._customer(self.root.for_("customer"))}

    def customerWithSubscriptions(self):
        """
        A customer with two live subscriptions (deleting it is refused); removeDependants cancels them.
        Back office: POST /v0/customers, POST /v0/subscriptions, POST /v0/subscriptions/{id}/cancel
        """
        a = self.root.for_("customerWithSubscriptions")
        plan_id, customer_id = self._simple_plan(), self._customer(a)
        subs = [
            self._subscribe(a, {"customerId": customer_id, "planId": plan_id}),
            self._subscribe(a, {"customerId": customer_id, "planId": plan_id}),
        ]

        def remove():
            each(
                lambda sid: a.post(f"/v0/subscriptions/{enc(sid)}/cancel", {"reason": "conform: unblock delete"}),
                subs,
            )

        return self._blocked("customerWithSubscriptions", customer_id, {"subscriptions": subs}, remove)

    def feeWithPrices(self):
        """
        A fee with a standard and a volume price (deleting it is refused); removeDependants deletes the prices.
        Back office: POST /v0/fees, POST /v0/prices, DELETE /v0/prices/{id}
        """
        a = self.root.for_("feeWithPrices")
        fee_id = self._fee(a)
        ids = [
            self._price(a, fee_id, unit_price="12.50"),
            self._price(a, fee_id, tiers=[{"unitPrice": "5.00", "upTo": "10"}, {"unitPrice": "4.00", "upTo": None}]),
        ]

        def remove():
            each(lambda pid: a.send("DELETE", f"/v0/prices/{enc(pid)}"), ids)

        return self._blocked("feeWithPrices", fee_id, {"prices": ids}, remove)

    def feeWithoutPrices(self):
        """
        A fee with no price.
        Back office: POST /v0/fees
        """
        return {"feeId": self._fee(self.root.for_("feeWithoutPrices"))}

    def item(self):
        """
        An active item of the run's product.
        Back office: POST /v0/products (once per run), POST /v0/items
        """
        product_id = self._product()
        return {"itemId": self._item(self.root.for_("item"), product_id), "productId": product_id}

    def itemWithAnchoredFee(self):
        """
        An item with a fee anchored to it (archiving is refused); removeDependants deletes the fee.
        Back office: POST /v0/items, POST /v0/fees, DELETE /v0/fees/{id}
        """
        a = self.root.for_("itemWithAnchoredFee")
        item_id = self._item(a, self._product())
        fee_id = self._fee(a, {"itemId": item_id})
        return self._blocked(
            "itemWithAnchoredFee", item_id, {"fees": [fee_id]}, lambda: a.send("DELETE", f"/v0/fees/{enc(fee_id)}")
        )

    def itemWithAnchoredMetric(self):
        """
        An item with a live billable metric anchored to it; removeDependants archives the metric.
        Back office: POST /v0/items, POST /v0/billableMetrics, DELETE /v0/billableMetrics/{id}
        """
        a = self.root.for_("itemWithAnchoredMetric")
        item_id = self._item(a, self._product())
        metric_id = self._metric(a, {"itemId": item_id})
        return self._blocked(
            "itemWithAnchoredMetric",
            item_id,
            {"billableMetrics": [metric_id]},
            lambda: a.send("DELETE", f"/v0/billableMetrics/{enc(metric_id)}"),
        )

    def itemWithPrimaryReference(self):
        """
        An item holding a primary and a secondary external reference.
        Back office: POST /v0/items, POST /v0/externalReferences
        """
        a = self.root.for_("itemWithPrimaryReference")
        item_id = self._item(a, self._product())
        reference_ids = []
        for is_primary in (True, False):
            ref = a.post(
                "/v0/externalReferences",
                {
                    "entityType": "item",
                    "entityId": item_id,
                    "provider": "salesforce",
                    "externalId": tag("ext"),
                    "isPrimary": is_primary,
                    "isDefault": is_primary,
                    "externalLabel": "Conform",
                },
            )
            reference_ids.append(field(ref, "id"))
        return {"itemId": item_id, "referenceIds": reference_ids}

    def externalIdClaimedTwice(self):
        """
        Two items; one external id claimed as primary by the first, then by the second.
        Back office: POST /v0/items, POST /v0/externalReferences
        """
        a = self.root.for_("externalIdClaimedTwice")
        product_id = self._product()
        item_ids = [self._item(a, product_id), self._item(a, product_id)]
        external_id = tag("ext")

        def claim(entity_id):
            return {
                "entityType": "item",
                "entityId": entity_id,
                "provider": "salesforce",
                "externalId": external_id,
                "isPrimary": True,
                "isDefault": True,
            }

        a.post("/v0/externalReferences", claim(item_ids[0]))
        # The second claim may be refused or move the primary status: the scenario judges the outcome.
        try:
            a.post("/v0/externalReferences", claim(item_ids[1]))
        except Exception:  # noqa: BLE001 - refused or not, the scenario judges it
            pass
        return {"itemIds": item_ids, "externalId": external_id, "provider": "salesforce"}

    def readItem(self, item_id):
        """
        Reads an item, archived or not (the document gives no item read).
        Back office: GET /v0/items/{id}
        """
        return self.root.for_("readItem").get(f"/v0/items/{enc(item_id)}")

    def migration(self, policy="floating"):
        """
        A live subscription, floating or pinned to version 3, on its own test clock: plan versions 1 (archived), 2,
        3 (default), 4, a missing 1000; overrides, and two billing schedules that are no 409 condition (_migration).
        Back office: POST /v0/fees, /v0/prices, /v0/billableMetrics, /v0/plans, /v0/plans/{id}/versions,
          /v0/testClocks, /v0/customers, /v0/subscriptions, /v0/orders, /v0/billingSchedules;
          GET /v0/subscriptions/{id}
        """
        return self._migration(self.root.for_("migration"), "floating" if policy is None else policy)

    def migrationConflict(self, kind):
        """
        Per 409 condition of the document, a subscription whose migration to version 2 meets it (_conflict).
        Back office: as migration, and POST /v0/subscriptions/{id}/cancel, POST /v0/pricingUnits
        """
        return {"subscriptionId": self._conflict(self.root.for_("migrationConflict"), kind), "targetVersionNumber": 2}

    def readSubscription(self, subscription_id):
        """
        Reads a subscription: its version and version policy (the document gives no subscription read).
        Back office: GET /v0/subscriptions/{id}
        """
        return self._read_subscription(self.root.for_("readSubscription"), subscription_id)

    def advancePastBoundary(self, subscription_id):
        """
        Advances the subscription's test clock to its period end (once more for in-arrears prices); returns what the
        next period bills.
        Back office: GET /v0/subscriptions/{id}, POST /v0/testClocks/{id}/advance, GET /v2/invoices
        """
        a = self.root.for_("advancePastBoundary")
        sub = self._read_subscription(a, subscription_id)
        clock = field(sub, "testClockId")
        if not isinstance(clock, str):
            raise FixtureUnavailable("advancePastBoundary", f"subscription {subscription_id} is not on a test clock")
        boundary = field(sub, "currentPeriodEnd")
        a.post(f"/v0/testClocks/{enc(clock)}/advance", defined(frozenTime=boundary))
        billed = self._billed_from(a, subscription_id, boundary)
        if not billed:
            nxt = self._read_subscription(a, subscription_id)
            a.post(f"/v0/testClocks/{enc(clock)}/advance", defined(frozenTime=field(nxt, "currentPeriodEnd")))
            billed = self._billed_from(a, subscription_id, boundary)
        if not billed:
            raise FixtureUnavailable(
                "advancePastBoundary",
                f"nothing of subscription {subscription_id} bills the period starting at {boundary}",
            )
        return {"billedPriceIds": billed}

    def wallet(self):
        """
        A wallet of a fresh customer.
        Back office: POST /v0/customers, POST /v0/wallets
        """
        return {"walletId": self._wallet(self.root.for_("wallet"))}

    def walletWithAlerts(self, min_alerts):
        """
        A wallet with at least n wallet_low_balance alerts.
        Back office: POST /v0/customers, POST /v0/wallets, POST /v0/alerts
        """
        a = self.root.for_("walletWithAlerts")
        wallet_id = self._wallet(a)
        alert_ids = []
        i = 0
        while i < min_alerts:
            body = {
                "resourceId": wallet_id,
                "type": "wallet_low_balance",
                "config": {"threshold": f"{10 + i}.00"},
                "enabled": True,
                "notifyPeriod": 3600,
                "recipients": ["billing@conform.invalid"],
            }
            alert_ids.append(field(a.post("/v0/alerts", body), "id"))
            i += 1
        return {"walletId": wallet_id, "alertIds": alert_ids}

    def order(self):
        """
        An order of a fresh customer.
        Back office: POST /v0/customers, POST /v0/orders
        """
        a = self.root.for_("order")
        line = {"description": "Conform order line", "quantity": 2, "unitPrice": "25.00"}
        return {"orderId": self._order(a, self._customer(a), [line])}

    def scheduleWithIntervals(self, min_intervals):
        """
        An order of n lines and a billing schedule of it: one interval per line.
        Back office: POST /v0/customers, POST /v0/orders, POST /v0/billingSchedules
        """
        a = self.root.for_("scheduleWithIntervals")
        lines = [
            {"description": f"Conform line {i + 1}", "quantity": i + 1, "unitPrice": "10.00"}
            for i in range(int(max(1, min_intervals)))
        ]
        order_id = self._order(a, self._customer(a), lines)
        return {"scheduleId": self._schedule(a, {"orderId": order_id}), "orderId": order_id, "intervalCount": len(lines)}

    def subscription(self):
        """
        A live subscription on the run's one-version plan.
        Back office: POST /v0/customers, POST /v0/subscriptions (the plan once per run: /v0/fees, /v0/prices,
          /v0/plans)
        """
        a = self.root.for_("subscription")
        plan_id, customer_id = self._simple_plan(), self._customer(a)
        return {"subscriptionId": self._subscribe(a, {"customerId": customer_id, "planId": plan_id})}

    def subscriptions(self, count):
        """
        Distinct live subscriptions of one customer, as many as asked: a fresh per-subscription rate-limit bucket each.
        Back office: POST /v0/customers, POST /v0/subscriptions
        """
        return self._live_subscriptions(self.root.for_("subscriptions"), count)

    def paidInvoice(self):
        """
        A PAID invoice with two taxed lines; amount and taxAmount are what a full refund returns.
        Back office: POST /v0/customers, POST /v2/invoices, POST /v2/invoices/{id}/finalize, POST
          /v2/invoices/{id}/pay
        """
        a = self.root.for_("paidInvoice")
        draft = self._draft_invoice(
            a,
            [
                {"description": "Conform seats", "amount": "19.99", "quantity": 3, "taxRate": 8.25},
                {"description": "Conform setup", "amount": "0.10", "quantity": 1, "taxRate": 20},
            ],
        )
        a.post(f"/v2/invoices/{enc(field(draft, 'id'))}/finalize")
        paid = a.post(f"/v2/invoices/{enc(field(draft, 'id'))}/pay")
        return defined(
            invoiceId=field(paid, "id"),
            amount=field(paid, "subtotal"),
            taxAmount=field(paid, "taxAmount"),
            currency=field(paid, "currency"),
        )

    def unrefundableInvoice(self):
        """
        A finalized, unpaid invoice: nothing to refund.
        Back office: POST /v0/customers, POST /v2/invoices, POST /v2/invoices/{id}/finalize
        """
        a = self.root.for_("unrefundableInvoice")
        draft = self._draft_invoice(a, [{"description": "Conform unpaid", "amount": "30.00"}])
        a.post(f"/v2/invoices/{enc(field(draft, 'id'))}/finalize")
        return {"invoiceId": field(draft, "id")}

    def payment(self):
        """
        A one-off payment.
        Back office: POST /v0/customers, POST /v0/payments
        """
        a = self.root.for_("payment")
        body = {
            "amount": "42.50",
            "currency": "USD",
            "customerId": self._customer(a),
            "reference": tag("ref"),
            "lineItems": [{"description": "Conform one-off", "amount": "42.50", "quantity": 1}],
        }
        return {"paymentId": field(a.post("/v0/payments", body), "id")}

    def invoiceLineItemsBody(self):
        """
        A draft invoice of its own per call, and a body adding one line to it (the payload is not shown).
        Back office: POST /v0/customers, POST /v2/invoices
        """
        draft = self._draft_invoice(
            self.root.for_("invoiceLineItemsBody"), [{"description": "Conform base line", "amount": "5.00"}]
        )
        return {
            "invoiceId": field(draft, "id"),
            "lineItems": [{"description": "Conform extra line", "amount": "1.25", "quantity": 2}],
        }

    def prices(self):
        """
        A standard and a volume price of a fresh fee, and the sandbox's seeded legacy prices (dynamic, percentage).
        Back office: POST /v0/fees, POST /v0/prices, GET /v0/prices?model=...
        """
        a = self.root.for_("prices")
        fee_id = self._fee(a)
        standard = self._price(a, fee_id, unit_price="9.99")
        volume = self._price(
            a,
            fee_id,
            tiers=[
                {"unitPrice": "3.00", "upTo": "100"},
                {"unitPrice": "2.50", "upTo": "1000"},
                {"unitPrice": "2.00", "upTo": None},
            ],
        )
        # Legacy models (dynamic, percentage) cannot be created: the sandbox's seeded ones are listed.
        legacy = []
        for model in ("dynamic", "percentage"):
            legacy.extend(field(p, "id") for p in a.get("/v0/prices", {"model": model, "limit": 5})["data"])
        return {"standard": standard, "volume": volume, "legacy": legacy}

    def sourceRule(self):
        """
        A source rule of a fresh source.
        Back office: POST /v0/sources, POST /v0/sourceRules
        """
        a = self.root.for_("sourceRule")
        source = a.post("/v0/sources", {"name": f"Conform source {tag()}"})
        conditions = [
            {"type": "amount", "operator": "lt", "value": "100.00"},
            {"type": "currency", "operator": "eq", "value": "USD"},
        ]
        rule = a.post(
            "/v0/sourceRules",
            {
                "sourceId": field(source, "id"),
                "name": "Conform rule",
                "description": "auto-accept small usage",
                "order": 1,
                "enabled": True,
                "conditions": conditions,
            },
        )
        return {"ruleId": field(rule, "id")}

    def crmProvider(self):
        """
        A CRM provider name the sandbox knows.
        Back office: none: a constant
        """
        return "salesforce"

    def close(self, options=None):
        """
        What the run created goes when it ends, unless CONFORM_KEEP_FIXTURES is set or the run asks to keep it
        (close's argument {"keep": true}: a failure names what the fixtures made): then a failure's replay
        command (report.json) still finds the resources it names.
        """
        asked_to_keep = isinstance(options, dict) and options.get("keep") is True
        if not (asked_to_keep or os.environ.get("CONFORM_KEEP_FIXTURES")):
            self.root.cleanup()
        return None

    def keep(self):
        """Instead of close(): nothing is removed; the requests that would remove it, in close()'s order."""
        with self.memo_lock:
            self.memo.clear()
        return self.root.kept()


def each(step, values):
    """Runs `step` on every value (as Promise.all does, none is skipped), then raises the first failure."""
    first = None
    for value in values:
        try:
            step(value)
        except Exception as err:  # noqa: BLE001 - raised after every value was tried
            first = first or err
    if first is not None:
        raise first


# --- the protocol's loop ----------------------------------------------------------------


def answer(out, fixtures, request):
    """Runs one request and writes its one answer: result, unavailable (a FixtureUnavailable) or error."""
    rid = request.get("id")
    method = request.get("method")
    args = request.get("args") or []
    reply = {"id": rid} if "id" in request else {}
    try:
        if not isinstance(args, list):
            raise TypeError(f"args of {method} is not a list")
        if method == "removeDependants":
            result = fixtures.remove_dependants(*args)
        elif method in Fixtures.METHODS:
            result = getattr(fixtures, method)(*args)
        else:
            raise LookupError(f"unknown method {method!r}")
        reply["result"] = result
    except FixtureUnavailable as err:
        log(f"{method}: {err}")
        reply["unavailable"] = err.reason
    except Exception as err:  # noqa: BLE001 - every request gets an answer; the loop never stops
        log(f"{method}: {type(err).__name__}: {err}")
        reply["error"] = f"{type(err).__name__}: {err}" if not isinstance(err, LookupError) else str(err)
    out.write(reply)


def configuration():
    """The back office's URL and credential; a variable not set ends the program (status 2) before hello."""
    url = os.environ.get("CONFORM_ADMIN_URL")
    if not url:
        log("CONFORM_ADMIN_URL (the back office the fixtures are created through) is not set")
        sys.exit(2)
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        log(f"CONFORM_ADMIN_URL {json.dumps(url)} is not an http:// or https:// URL")
        sys.exit(2)
    key = os.environ.get("CONFORM_ADMIN_KEY")
    if not key:
        log(
            "CONFORM_ADMIN_KEY is not set: the back office's credential "
            "(the sandbox's key goes there only if you set it to that key)"
        )
        sys.exit(2)
    return url, key


def main():
    admin_url, admin_key = configuration()
    out = Out(sys.stdout.buffer)
    fixtures = Fixtures(out, admin_url, admin_key)
    pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="fixture")
    pending = set()
    pending_lock = threading.Lock()

    def settle():
        """Waits for the requests under way (close and keep see everything they made)."""
        with pending_lock:
            running = list(pending)
        for fut in running:
            try:
                fut.result()
            except Exception:  # noqa: BLE001 - answer() catches; nothing reaches here
                pass

    def done(fut):
        with pending_lock:
            pending.discard(fut)

    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", errors="replace").strip()
        if not line:
            continue
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("not a JSON object")
        except ValueError as err:
            log(f"a line that is no request ({err}): {line[:200]}")
            continue
        method = request.get("method")
        if method == "hello":
            hello = (request.get("args") or [{}])[0] or {}
            reply = {"id": request.get("id")}
            if hello.get("protocol") != PROTOCOL:
                reply["error"] = f"protocol {hello.get('protocol')!r} is not spoken here: this program speaks {PROTOCOL}"
            else:
                fixtures.base_url, fixtures.api_key = hello.get("baseUrl"), hello.get("apiKey")
                reply["result"] = {"methods": [*Fixtures.METHODS, "keep"]}
            out.write(reply)
        elif method in ("close", "keep"):
            settle()
            reply = {"id": request.get("id")} if "id" in request else {}
            try:
                args = request.get("args") or []
                options = args[0] if isinstance(args, list) and args else None
                reply["result"] = fixtures.close(options) if method == "close" else fixtures.keep()
            except Exception as err:  # noqa: BLE001 - close is best effort
                reply["error"] = f"{type(err).__name__}: {err}"
            out.write(reply)
        else:
            fut = pool.submit(answer, out, fixtures, request)
            with pending_lock:
                pending.add(fut)
            fut.add_done_callback(done)
    # stdin closed: answer what is under way, then end.
    pool.shutdown(wait=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
