"""``manage.py eval_time``: how each kind of record is scored, and the accuracy on the shared corpus."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from assistant.evaluation import time_eval
from assistant.timeexpr import TimeMatch

EVAL_FILE = Path(settings.BASE_DIR).parent / "shared" / "eval" / "time_expressions.dev.jsonl"

REQUIRED_KEYS = {"single_accuracy", "interval_accuracy", "negative_accuracy", "n_single", "median_us"}

needs_eval_file = pytest.mark.skipif(not EVAL_FILE.is_file(), reason="the shared evaluation file is not here")


@needs_eval_file
def test_json_report_meets_the_target() -> None:
    report = _report(EVAL_FILE)
    assert set(report) >= REQUIRED_KEYS
    assert report["n_single"] > 0
    assert report["single_accuracy"] >= 0.9
    assert report["interval_accuracy"] >= 0.8


@needs_eval_file
def test_table_report_names_every_figure() -> None:
    out = StringIO()
    call_command("eval_time", str(EVAL_FILE), stdout=out)
    table = out.getvalue()
    for label in ("single values", "intervals", "negatives", "convention-dependent", "median"):
        assert label in table


def _report(path: Path) -> dict[str, float]:
    out = StringIO()
    call_command("eval_time", str(path), "--json", stdout=out)
    report: dict[str, float] = json.loads(out.getvalue())
    return report


def test_scoring_of_each_kind_of_record(tmp_path: Path) -> None:
    reference = "2013-02-12T04:30:00-02:00"
    records: list[dict[str, object]] = [
        {
            "texts": ["tomorrow at 5pm", "at 5pm tomorrow"],
            "value": "2013-02-13T17:00:00.000-02:00",
            "grain": "hour",
        },
        # Duckling closes "8am - 1pm" at 14:00; the product ends it at 13:00, one grain before: both count
        {
            "texts": ["8am - 1pm"],
            "from": "2013-02-12T08:00:00.000-02:00",
            "to": "2013-02-12T14:00:00.000-02:00",
            "grain": "hour",
            "to_is_exclusive": True,
        },
        {
            "texts": ["since 2014"],
            "from": "2014-01-01T00:00:00.000-02:00",
            "grain": "year",
            "open_interval": "after",
        },
        {"texts": ["laugh", "3 30"], "negative": True},
        {
            "texts": ["next wednesday"],
            "value": "2013-02-13T00:00:00.000-02:00",
            "grain": "day",
            "convention_dependent": True,
        },
    ]
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(json.dumps({"reference": reference, **r}) for r in records), encoding="utf-8")
    report = _report(path)
    assert (report["single_accuracy"], report["n_single"]) == (1.0, 2)
    assert report["interval_accuracy"] == 1.0
    assert (report["negative_accuracy"], report["n_negative"]) == (1.0, 2)
    assert (report["convention_accuracy"], report["n_convention"]) == (0.0, 1)


def test_a_record_it_cannot_read_is_a_counted_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Duckling's "in 2014 B.C." (year -2014, beyond Python's datetime), a malformed reference and a
    resolver that raises each cost one miss in their category instead of stopping the run."""
    real_find_times = time_eval.find_times

    def find_times(text: str, **kwargs: Any) -> list[TimeMatch]:
        if text == "at 5pm on the day the resolver breaks":
            raise RuntimeError("resolver bug")
        return real_find_times(text, **kwargs)

    monkeypatch.setattr(time_eval, "find_times", find_times)
    reference = "2013-02-12T04:30:00-02:00"
    records: list[dict[str, object]] = [
        {
            "texts": ["in 2014 B.C."],
            "reference": reference,
            "value": "-2014-01-01T00:00:00.000-02:00",
            "grain": "year",
        },
        {
            "texts": ["tomorrow"],
            "reference": reference,
            "value": "2013-02-13T00:00:00.000-02:00",
            "grain": "day",
        },
        {
            "texts": ["at 5pm on the day the resolver breaks"],
            "reference": reference,
            "value": reference,
            "grain": "hour",
        },
        {
            "texts": ["8am - 1pm"],
            "reference": "not a time",
            "from": reference,
            "to": reference,
            "grain": "hour",
        },
    ]
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")

    report = _report(path)
    assert (report["single_accuracy"], report["n_single"]) == (1 / 3, 3)
    assert (report["interval_accuracy"], report["n_interval"]) == (0.0, 1)
    assert report["unreadable"] == 3

    out = StringIO()
    call_command("eval_time", str(path), "--misses", stdout=out)
    table = out.getvalue()
    assert "unreadable: 3" in table
    bc = next(line for line in table.splitlines() if line.startswith("'in 2014 B.C.'"))
    assert "expected -2014-01-01" in bc
    assert "unreadable: ValueError" in bc
    assert "unreadable: RuntimeError: resolver bug" in table


def test_misses_say_what_was_expected_and_what_came_out(tmp_path: Path) -> None:
    record = {
        "texts": ["tomorrow"],
        "reference": "2013-02-12T04:30:00-02:00",
        "value": "2013-02-14T00:00:00.000-02:00",
        "grain": "day",
    }
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps(record), encoding="utf-8")
    out = StringIO()
    call_command("eval_time", str(path), "--json", "--misses", stdout=out)
    report = json.loads(out.getvalue())
    assert report["unreadable"] == 0
    assert report["misses"] == [
        {
            "text": "tomorrow",
            "expected": "2013-02-14T00:00:00.000-02:00 at the day grain",
            "got": "'tomorrow' as 2013-02-13T00:00:00-02:00 .. 2013-02-14T00:00:00-02:00",
            "why": "wrong value at the day grain",
        }
    ]


def test_a_line_that_is_not_json_stops_the_run_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text('{"texts": ["tomorrow"], "negative": true}\nnot json\n', encoding="utf-8")
    with pytest.raises(CommandError, match=r"corpus\.jsonl:2 is not JSON"):
        call_command("eval_time", str(path), stdout=StringIO())
