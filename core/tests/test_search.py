"""The local tool search: ``toolplug.search`` (BM25 and regex), and its quality on a fixed set.

The quality set (tests/data/tool_search) is 500 tool definitions, real ones from MCP
servers and generated ones (make_tools.py writes them), and 100 queries written as an
agent phrases a need, each with the tool it should find.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field
from toolplug import Action, ToolDefinition, tool
from toolplug.errors import SearchError, ToolError
from toolplug.search import MAX_PATTERN_LENGTH, REGEX_INSTALL, SearchHit, ToolIndex, split_name

DATA = Path(__file__).parent / "data" / "tool_search"


def entries_of(tools: list[dict[str, Any]]) -> list[tuple[str, str, list[str]]]:
    """MCP tool dicts as ``(name, description, parameter names)``."""
    return [
        (t["name"], t.get("description", ""), list(t["inputSchema"].get("properties", {})))
        for t in tools
    ]


@pytest.fixture(scope="module")
def quality_index() -> ToolIndex:
    tools = json.loads((DATA / "tools.json").read_text())
    assert len(tools) == 500
    assert len({t["name"] for t in tools}) == 500
    return ToolIndex.from_entries(entries_of(tools))


def accuracy(index: ToolIndex, queries: list[dict[str, str]]) -> tuple[float, float, list[str]]:
    """Top-1 and top-5 accuracy, and the queries whose tool is not in the top 5."""
    top1 = top5 = 0
    misses = []
    for case in queries:
        names = [hit.name for hit in index.search(case["query"], limit=5)]
        top1 += names[:1] == [case["expected"]]
        if case["expected"] in names:
            top5 += 1
        else:
            misses.append(f"{case['query']!r} -> {case['expected']} (got {names})")
    return top1 / len(queries), top5 / len(queries), misses


# -- quality ---------------------------------------------------------------------------


def test_the_right_tool_is_in_the_top_5_for_95_percent_of_the_queries(
    quality_index: ToolIndex,
) -> None:
    queries = json.loads((DATA / "queries.json").read_text())
    assert len(queries) == 100
    top1, top5, misses = accuracy(quality_index, queries)
    assert top5 >= 0.95, f"top-5 {top5:.0%}, top-1 {top1:.0%}; missed: {misses}"
    print(f"tool search quality: top-5 {top5:.0%}, top-1 {top1:.0%} over {len(queries)} queries")


def test_queries_written_after_the_tuning_score_alike(quality_index: ToolIndex) -> None:
    # The weights and synonyms were chosen looking at queries.json's misses; these 20
    # were written afterwards and never tuned for, to show the figure is not a fit.
    queries = json.loads((DATA / "queries_holdout.json").read_text())
    top1, top5, misses = accuracy(quality_index, queries)
    assert top5 >= 0.9, f"held-out top-5 {top5:.0%}, top-1 {top1:.0%}; missed: {misses}"


def test_the_data_set_is_what_its_generator_writes(tmp_path: Path) -> None:
    # tools.json is generated; a hand edit would make the generator a lie.
    copy = tmp_path / "tool_search"
    copy.mkdir()
    for name in ("make_tools.py", "captured.json"):
        (copy / name).write_text((DATA / name).read_text())
    subprocess.run([sys.executable, str(copy / "make_tools.py")], check=True, timeout=120)
    assert (copy / "tools.json").read_text() == (DATA / "tools.json").read_text()


def test_queries_name_tools_of_the_set() -> None:
    names = {t["name"] for t in json.loads((DATA / "tools.json").read_text())}
    for file in ("queries.json", "queries_holdout.json"):
        for case in json.loads((DATA / file).read_text()):
            assert case["expected"] in names, (file, case)


# -- ranking ---------------------------------------------------------------------------


def test_a_name_match_ranks_above_a_description_match() -> None:
    index = ToolIndex.from_entries(
        [
            ("send_email", "Sends a message to a recipient.", ["to", "body"]),
            ("post_message", "Posts a note; can also email a copy to a watcher.", ["text"]),
        ]
    )
    assert [hit.name for hit in index.search("email")] == ["send_email", "post_message"]


def test_equal_scores_are_ordered_by_name() -> None:
    entries = [(name, "Reads a file.", ["path"]) for name in ("zeta", "alpha", "mid")]
    hits = ToolIndex.from_entries(entries).search("reads file")
    assert [hit.name for hit in hits] == ["alpha", "mid", "zeta"]
    assert len({hit.score for hit in hits}) == 1


def test_the_order_of_the_tools_does_not_change_the_answer() -> None:
    tools = json.loads((DATA / "tools.json").read_text())[:120]
    forward = ToolIndex.from_entries(entries_of(tools))
    backward = ToolIndex.from_entries(entries_of(tools[::-1]))
    for query in ("list files in a directory", "create an issue", "current time"):
        assert forward.search(query, limit=10) == backward.search(query, limit=10)


def test_the_answer_is_the_same_in_every_process() -> None:
    # Scores are sums of floats, so the order terms are added in shows in their last
    # bits; it must not follow the interpreter's hash seed (a set's order does).
    script = textwrap.dedent(
        f"""
        import json
        from toolplug.search import ToolIndex
        tools = json.loads(open({str(DATA / "tools.json")!r}).read())
        queries = json.loads(open({str(DATA / "queries.json")!r}).read())
        index = ToolIndex.from_entries(
            (t["name"], t["description"], list(t["inputSchema"].get("properties", {{}})))
            for t in tools
        )
        for case in queries:
            print([(hit.name, hit.score.hex()) for hit in index.search(case["query"], limit=10)])
        """
    )
    answers = set()
    for seed in ("1", "2", "3"):
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert done.returncode == 0, done.stderr
        answers.add(done.stdout)
    assert len(answers) == 1


def test_limit_and_no_match() -> None:
    index = ToolIndex.from_entries([(f"read_{i}", "Reads a file.", []) for i in range(9)])
    assert len(index.search("read", limit=3)) == 3
    assert len(index.search("read")) == 5
    assert index.search("read", limit=0) == []
    assert index.search("kubernetes") == []
    assert len(index) == 9


def test_hits_are_frozen_name_and_score() -> None:
    hit = ToolIndex.from_entries([("echo", "Echoes text.", [])]).search("echo")[0]
    assert isinstance(hit, SearchHit) and hit.name == "echo" and hit.score > 0
    with pytest.raises(AttributeError):
        hit.name = "other"  # type: ignore[misc]


def test_parameter_names_are_searched() -> None:
    index = ToolIndex.from_entries(
        [("lookup", "Looks something up.", ["isbn"]), ("other", "Looks around.", ["x"])]
    )
    assert [hit.name for hit in index.search("isbn")] == ["lookup"]


def test_plurals_and_verb_forms_meet() -> None:
    index = ToolIndex.from_entries(
        [
            ("git_reset", "Unstages everything that is staged.", []),
            ("list_issue", "Shows one issue.", []),
            ("runner", "Keeps running jobs.", []),
        ]
    )
    assert index.search("unstage the files")[0].name == "git_reset"
    assert index.search("issues")[0].name == "list_issue"
    assert index.search("run a job")[0].name == "runner"


def test_a_synonym_finds_a_tool_but_the_exact_word_ranks_first() -> None:
    index = ToolIndex.from_entries(
        [
            ("create_dir", "Creates a directory.", ["path"]),
            ("open_folder", "Opens a folder in the file browser.", ["path"]),
            ("unrelated", "Something else.", ["path"]),
        ]
    )
    hits = [hit.name for hit in index.search("folder")]
    assert hits == ["open_folder", "create_dir"]


def test_a_tool_name_typed_whole_matches_that_tool() -> None:
    index = ToolIndex.from_entries(
        [("git_status", "Shows the working tree.", []), ("status_page", "Status of git.", [])]
    )
    assert index.search("git_status")[0].name == "git_status"


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("github__create_issue", ["github", "create", "issue"]),
        ("github/createPullRequest", ["github", "create", "pull", "request"]),
        ("files.read", ["files", "read"]),
        ("get-HTTPResponse2xx", ["get", "http", "response", "2", "xx"]),
        ("s3__list_buckets", ["s", "3", "list", "buckets"]),
        ("printEnv", ["print", "env"]),
    ],
)
def test_names_split_on_separators_camel_case_and_digits(name: str, words: list[str]) -> None:
    assert split_name(name) == words


def test_words_outside_ascii_are_found_whole() -> None:
    index = ToolIndex.from_entries(
        [
            ("wetter", "Zeigt die Wettervorhersage für eine Stadt.", ["stadt"]),
            ("größe_ändern", "Ändert die Größe eines Bildes.", ["breite"]),
            ("天気", "東京 の 天気 を 調べる", []),
        ]
    )
    assert index.search("Wettervorhersage für München")[0].name == "wetter"
    assert index.search("größe")[0].name == "größe_ändern"
    assert index.search("東京")[0].name == "天気"
    assert split_name("größe_ändernBild") == ["größe", "ändernbild"]


def test_camel_case_names_are_found_by_their_words() -> None:
    index = ToolIndex.from_entries(
        [("longRunningOperation", "Demo.", []), ("printEnv", "Prints the environment.", [])]
    )
    assert index.search("long running operation")[0].name == "longRunningOperation"


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_an_empty_query_is_a_clear_error(query: str) -> None:
    index = ToolIndex.from_entries([("echo", "Echoes text.", [])])
    with pytest.raises(SearchError, match="query is empty") as caught:
        index.search(query)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, ToolError)


def test_built_from_definitions_with_their_parameter_names() -> None:
    class Forecast(Action):
        city: str = Field(description="The city.")
        days: int = 3

    forecast: ToolDefinition[Any, Any] = ToolDefinition(
        name="weather_forecast",
        description="Tomorrow's weather.",
        action_type=Forecast,
    )

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    index = ToolIndex([forecast, add])
    assert [hit.name for hit in index.search("city")] == ["weather_forecast"]
    assert [hit.name for hit in index.search("add numbers")] == ["add"]
    assert [hit.name for hit in index.search_regex("^days$")] == ["weather_forecast"]


def test_parameter_names_are_the_exported_ones() -> None:
    class Aliased(Action):
        path_name: str = Field(alias="pathName", description="Where.")

    class OwnSchema(ToolDefinition[Any, Any]):
        """A definition that exports a schema of its own, as an MCP server's tool does."""

        def input_schema(self, *, security_risk: bool = False) -> dict[str, Any]:
            return {"type": "object", "properties": {"repo_path": {"type": "string"}}}

    aliased: ToolDefinition[Any, Any] = ToolDefinition(
        name="aliased", description="Aliased.", action_type=Aliased
    )
    own = OwnSchema(name="own", description="Own schema.", action_type=Action)
    assert list(aliased.input_schema()["properties"]) == ["pathName"]
    index = ToolIndex([aliased, own])
    assert [hit.name for hit in index.search_regex("^pathName$")] == ["aliased"]
    assert [hit.name for hit in index.search_regex("^repo_path$")] == ["own"]


# -- regex -----------------------------------------------------------------------------

REGEX_TOOLS = [
    ("get_weather", "Current conditions for a city.", ["city"]),
    ("forecast", "The WEATHER for the next days.", ["city", "days"]),
    ("send_mail", "Sends an email.", ["weather_report"]),
    ("other", "Unrelated.", ["x"]),
]


def test_regex_matches_name_description_and_parameters_case_insensitively() -> None:
    hits = ToolIndex.from_entries(REGEX_TOOLS).search_regex("weather")
    assert [hit.name for hit in hits] == ["get_weather", "forecast", "send_mail"]


def test_regex_anchors_apply_to_each_field() -> None:
    index = ToolIndex.from_entries(REGEX_TOOLS)
    assert [hit.name for hit in index.search_regex(r"^get_")] == ["get_weather"]
    assert [hit.name for hit in index.search_regex(r"^days$")] == ["forecast"]
    assert index.search_regex("nothing matches this") == []
    assert len(index.search_regex(".", limit=2)) == 2


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("get_(weather", "missing ), unterminated subpattern, at character 5"),
        ("weather)", "unbalanced parenthesis, at character 8"),
        ("[a-", "unterminated character set, at character 1"),
        ("*weather", "nothing to repeat, at character 1"),
    ],
)
def test_an_invalid_regex_says_where(pattern: str, message: str) -> None:
    with pytest.raises(SearchError) as caught:
        ToolIndex.from_entries(REGEX_TOOLS).search_regex(pattern)
    assert message in str(caught.value)
    assert repr(pattern) in str(caught.value)


def test_a_regex_over_the_length_limit_is_refused() -> None:
    index = ToolIndex.from_entries(REGEX_TOOLS)
    assert index.search_regex("w" + "." * (MAX_PATTERN_LENGTH - 1)) == []
    with pytest.raises(SearchError, match="201 characters long; the limit is 200"):
        index.search_regex("w" * (MAX_PATTERN_LENGTH + 1))


@pytest.mark.parametrize("pattern", ["", None])
def test_an_empty_regex_is_refused(pattern: Any) -> None:
    with pytest.raises(SearchError, match="pattern is empty"):
        ToolIndex.from_entries(REGEX_TOOLS).search_regex(pattern)


@pytest.mark.parametrize("pattern", [r"(?=weather)w", r"(a)\1", r"a{2000}"])
def test_a_regex_beyond_the_linear_time_engine_is_refused_with_the_reason(pattern: str) -> None:
    with pytest.raises(SearchError, match="cannot run on RE2") as caught:
        ToolIndex.from_entries(REGEX_TOOLS).search_regex(pattern)
    assert "rewrite the pattern" in str(caught.value)


HANGING = textwrap.dedent(
    """
    from toolplug.search import ToolIndex
    # 500 tools whose descriptions make a backtracking engine try 2**40 ways each.
    entries = [(f"tool_{i}", "a" * 40 + "!" + "b" * 2000, ["a" * 40 + "!"]) for i in range(500)]
    index = ToolIndex.from_entries(entries)
    for pattern in ["(a+)+$", "(a|a)*c", "(a|aa)+c", "(.*a){20}c"]:
        assert index.search_regex(pattern) == [], pattern
    print("done")
    """
)


def test_a_catastrophic_regex_returns_promptly() -> None:
    # Python's re would take hours on these; the bound proves "does not hang", no more.
    done = subprocess.run(
        [sys.executable, "-c", HANGING], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"


def test_without_re2_regex_search_names_the_extra() -> None:
    script = textwrap.dedent(
        """
        import sys
        sys.modules["re2"] = None  # as if google-re2 were not installed
        from toolplug.search import ToolIndex, SearchError
        index = ToolIndex.from_entries([("echo", "Echoes text.", [])])
        assert index.search("echo")[0].name == "echo"  # BM25 needs nothing
        try:
            index.search_regex("echo")
        except SearchError as exc:
            print(exc)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"regex tool search needs RE2: {REGEX_INSTALL}"
