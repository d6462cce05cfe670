"""model/interrupts.py time_limit, no database: a fake backend library stands in
for the server's timer (timeout.c), to check the version guard and that the
statement's own timer is put back however the block ends."""

from __future__ import annotations

import ctypes
import types

import pytest
from dbms_cloud_ai.errors import FeatureNotSupported
from dbms_cloud_ai.model import interrupts


class _Fn:
    def __init__(self, lib, name):
        self.lib, self.name = lib, name

    def __call__(self, *args):
        args = tuple(getattr(a, "value", a) for a in args)
        self.lib.calls.append((self.name, *args))
        return self.lib.answer(self.name, args)


class FakeBackend:
    """The exported functions time_limit calls; ``active``: the statement timer's
    finish time, or None when it is not armed."""

    def __init__(self, version=b"150004", active=None, missing=()):
        self.version, self.active, self.missing, self.calls = version, active, set(missing), []

    def __getattr__(self, name):
        if name in self.missing:
            raise AttributeError(name)
        fn = _Fn(self, name)
        object.__setattr__(self, name, fn)
        return fn

    def answer(self, name, args):
        if name == "GetConfigOption":
            return self.version
        if name == "get_timeout_active":
            return self.active is not None
        if name == "get_timeout_finish_time":
            return self.active if self.active is not None else 0
        if name == "enable_timeout_after":
            self.active = 10_000 + args[1]          # now + the delay, whatever ran before
        elif name == "enable_timeout_at":
            self.active = args[1]
        elif name == "disable_timeout":
            self.active = None
        return None


@pytest.fixture
def backend(monkeypatch):
    def install(**kw):
        lib = FakeBackend(**kw)
        monkeypatch.setattr(interrupts, "_flags", {"InterruptPending": ctypes.c_int(0)})
        monkeypatch.setattr(interrupts, "_timer", None)
        monkeypatch.setattr(interrupts, "ctypes", types.SimpleNamespace(
            CDLL=lambda _: lib, c_bool=ctypes.c_bool, c_int=ctypes.c_int, c_int64=ctypes.c_int64,
            c_char_p=ctypes.c_char_p))
        return lib
    return install


def test_statement_timeout_id_is_the_one_of_the_checked_sources():
    assert interrupts._STATEMENT_TIMEOUT == 3
    assert list(interrupts.CHECKED_MAJORS) == [13, 14, 15, 16, 17, 18]


def test_the_timer_is_armed_then_disarmed_when_none_ran_before(backend):
    lib = backend()
    with interrupts.time_limit(0.5):
        assert lib.active == 10_500
    assert lib.active is None
    assert ("enable_timeout_after", 3, 500) in lib.calls


def test_the_statements_timer_is_put_back_when_the_block_fails(backend):
    lib = backend(active=99)
    with pytest.raises(ValueError):
        with interrupts.time_limit(30):
            assert lib.active == 99               # the earlier finish stands
            raise ValueError("the tool failed")
    assert lib.active == 99 and lib.calls[-1] == ("enable_timeout_at", 3, 99)


def test_a_disarmed_timer_stays_disarmed_when_the_block_fails(backend):
    lib = backend()
    with pytest.raises(KeyboardInterrupt):
        with interrupts.time_limit(1):
            raise KeyboardInterrupt
    assert lib.active is None and lib.calls[-1][0] == "disable_timeout"


@pytest.mark.parametrize("version", [b"190001", b"120010", b"", None, b"x"])
def test_an_unchecked_server_is_refused_before_any_timer_is_touched(backend, version):
    lib = backend(version=version)
    with pytest.raises(FeatureNotSupported) as e:
        with interrupts.time_limit(1):
            pytest.fail("the block ran")
    assert e.value.sqlstate == "0A000"
    assert [c[0] for c in lib.calls] == ["GetConfigOption"]


def test_a_server_without_the_timer_accessors_is_refused(backend):
    lib = backend(version=b"130012", missing={"get_timeout_active"})
    with pytest.raises(FeatureNotSupported):
        with interrupts.time_limit(1):
            pytest.fail("the block ran")
    assert [c[0] for c in lib.calls] == ["GetConfigOption"]


def test_outside_a_backend_there_is_no_limit(monkeypatch):
    monkeypatch.setattr(interrupts, "_flags", {})
    with interrupts.time_limit(0.001):
        pass
