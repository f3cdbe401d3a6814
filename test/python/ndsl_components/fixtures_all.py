"""Every good fixture in one driver (and, with BAD_CASE set, one bad component too)."""
import os

import fixtures_bad
import fixtures_d_sw
import fixtures_delnflux
import fixtures_plain
import fixtures_ray
import fixtures_state

FIXTURES = {"ray": fixtures_ray, "delnflux": fixtures_delnflux, "d_sw": fixtures_d_sw, "state": fixtures_state, "plain": fixtures_plain}


def run(calls):
    arrays, report = {}, {}
    for name, fixture in FIXTURES.items():
        a, r = fixture.run(calls)
        arrays.update({f"{name}.{k}": v for k, v in a.items()})
        report.update({f"{name}.{k}": v for k, v in r.items()})
        if name == "delnflux" and os.environ.get("BAD_CASE"):
            fixtures_bad.run(calls)  # in the middle: Build goes on after it
    return arrays, report
