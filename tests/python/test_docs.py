"""docs/PYTHON.md's snippets run, in order and in one namespace, against an objwired."""

import pathlib
import re
import sys
import types

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "PYTHON.md"


def snippets():
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_python_md_has_snippets():
    assert len(snippets()) >= 6


def test_every_snippet_of_python_md_runs(daemon, capsys):
    module = types.ModuleType("python_md")  # dataclasses look their annotations up in it
    sys.modules["python_md"] = module
    try:
        for code in snippets():
            code = code.replace("127.0.0.1:7878", daemon.to)
            exec(compile(code, str(DOC), "exec"), module.__dict__)
    finally:
        del sys.modules["python_md"]
    printed = capsys.readouterr().out
    assert "batch_linger" in printed and "depth_exceeded" not in printed
    assert 'message refused: ["deep"][0][0]' in printed
