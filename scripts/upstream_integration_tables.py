#!/usr/bin/env python3
"""Dump the case tables of a kube-scheduler v1.37.2 integration test file as JSON, objects as the API takes them.

The tables are Go composite literals built with st.MakePod/st.MakeNode and friends; rather than transcribe
them by hand, this builds a Go program from the test file itself: each Test function's body up to the end of
its `tests := ...` table, returning the table, and a reflection walk that writes every case as
{field: value} (Kubernetes objects through their JSON tags; func fields as null). The e2e tests read the
JSON (tests/e2e/upstream_tables/); the test procedures (create, wait, expect) are ported by hand.

    python scripts/upstream_integration_tables.py filters/filters_test.go tests/e2e/upstream_tables/filters.json \
        TestUnschedulablePodBecomesSchedulable TestNodeDeclaredFeaturesFilter  # tables left out (transcribed)
    python scripts/upstream_integration_tables.py queueing/queue.go tests/e2e/upstream_tables/queueing.json \
        --var CoreResourceEnqueueTestCases  # a package-level table (its struct's fields written lowerCamel)
    python scripts/upstream_integration_tables.py queueing/queue_test.go tests/e2e/upstream_tables/queue_test.json
    python scripts/upstream_integration_tables.py podgroup/podgroup_test.go tests/e2e/upstream_tables/podgroup.json
        # likewise podgroup_affinity_test.go, podgroup_pvc_test.go, topology_aware_scheduling/tas_test.go (podgroup_tas)

A podgroup table's cases are stepsframework.Step lists: the package's types are copied into the program (it
imports testutils), the file's lower-case helpers (makeNode, makePod) with them, and each step is written with its
name and its one operation.

A package-level `var NAME = []*Case{...}` table (--var NAME) is dumped with the file's type and const
declarations; its closures (trigger functions, which call the API) are left out as null and transcribed.

Needs Go and the module cache of tests/e2e/k8s/go.mod (scripts/provision-k8s.sh); builds offline.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from upstream_cases import integration_dir, scheduler_dir  # noqa: E402

_TABLE = re.compile(r"^\t(tests|testCases) := (\[\]struct|map\[string\]struct|\[\]\w+\{)", re.M)
_FUNC = re.compile(r"^func (Test\w+)\(t \*testing\.T\) \{\n", re.M)

DUMPER = r'''
func dumpValue(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Func:
		// func(testCtx *testutils.TestContext) T fields: called with a context whose namespace is ""
		if !v.IsNil() && v.Type().NumIn() == 1 && v.Type().NumOut() == 1 && v.Type().In(0) == reflect.TypeOf(&testContext{}) {
			return dumpValue(v.Call([]reflect.Value{reflect.ValueOf(&testContext{})})[0])
		}
		return nil
	case reflect.Chan, reflect.Interface:
		if v.Kind() == reflect.Interface && !v.IsNil() {
			return dumpValue(v.Elem())
		}
		return nil
	case reflect.Ptr:
		if v.IsNil() {
			return nil
		}
		return dumpValue(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
	}
	if v.Kind() == reflect.Slice || v.Kind() == reflect.Array {
		if e := v.Type().Elem(); e.Kind() == reflect.Struct && (e.Name() == "" || e.PkgPath() == "main") &&
			!e.Implements(reflect.TypeOf((*json.Marshaler)(nil)).Elem()) {
			out := []any{}
			for i := 0; i < v.Len(); i++ {
				out = append(out, dumpValue(v.Index(i)))
			}
			return out
		}
	}
	marshaler := reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	if v.Kind() == reflect.Struct && (v.Type().Name() == "" || v.Type().PkgPath() == "main") && !v.Type().Implements(marshaler) {
		// the test's case structs (anonymous, or declared in the test): unexported fields read through an
		// addressable copy
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		out := map[string]any{}
		for i := 0; i < c.NumField(); i++ {
			f := c.Field(i)
			f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
			out[c.Type().Field(i).Name] = dumpValue(f)
		}
		return out
	}
	raw, err := json.Marshal(v.Interface())
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}

// testContext stands in for testutils.TestContext in table closures (only NS.Name is read there).
type testContext struct {
	NS struct{ Name string }
}

func dumpTable(table any) any {
	v := reflect.ValueOf(table)
	if v.Kind() == reflect.Map {
		out := map[string]any{}
		for _, k := range v.MapKeys() {
			out[k.String()] = dumpValue(v.MapIndex(k))
		}
		return out
	}
	return dumpValue(v)
}
'''


def _block_end(text: str, start: int) -> int:
    """Index just past the `}` closing the brace opened at or after start (strings and runes skipped)."""
    depth, i, n = 0, text.index("{", start), len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'`":
            end = text.index(ch, i + 1) if ch == "`" else i + 1
            if ch != "`":
                while text[end] != ch:
                    end += 2 if text[end] == "\\" else 1
            i = end + 1
            continue
        if text.startswith("//", i):
            i = text.index("\n", i)
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced braces")


def _program(source: str, skip: set[str], sched_root: Path) -> tuple[str, list[str]]:
    imports = source[source.index("import ("): source.index(")\n", source.index("import (")) + 2]
    funcs, names = [], []
    for m in _FUNC.finditer(source):
        name = m.group(1)
        end = _block_end(source, m.end() - 2)
        body = source[m.end(): end - 1]
        table = _TABLE.search(body)
        if name in skip or not table:
            continue
        if table.group(2).endswith("{"):  # `[]scenario{`: a table of a named case type
            literal_end = _block_end(body, table.end() - 1)
        else:
            literal_start = body.index("{", body.index("struct", table.start()))
            literal_start = _block_end(body, literal_start)  # end of the struct type
            literal_end = _block_end(body, literal_start)
        code = body[:literal_end].replace("*testutils.TestContext", "*testContext")
        funcs.append(f"func table{name}(t *testing.T) any {{\n{code}\n\treturn {table.group(1)}\n}}\n")
        names.append(name)
    calls = "\n".join(f'\tout["{n}"] = dumpTable(table{n}(nil))' for n in names)
    extra = '\t"encoding/json"\n\t"fmt"\n\t"os"\n\t"reflect"\n\t"testing"\n\t"unsafe"\n'
    own = {"encoding/json", "fmt", "os", "reflect", "testing", "unsafe"}
    if any("testutils.PausePodConfig" in f for f in funcs):
        # testutils.PausePodConfig, copied with InitPausePod: a config dumps as the pod InitPausePod makes of it
        util = (Path(str(sched_root)) / "test" / "integration" / "util" / "util.go").read_text()
        for head in ("type PausePodConfig struct {", "func InitPausePod(conf *PausePodConfig) *v1.Pod {"):
            start = util.index(head)
            funcs.append(util[start:_block_end(util, start)] + "\n")
        funcs.append("func (c PausePodConfig) MarshalJSON() ([]byte, error) { return json.Marshal(InitPausePod(&c)) }\n")
        funcs[:] = [f.replace("testutils.PausePodConfig", "PausePodConfig") for f in funcs]
    # package-level declarations the tables use (not the test helpers bound to testutils)
    for m in re.finditer(r"^(var|const) (\(\n.*?^\)|.*?$)\n", source, re.M | re.S):
        if "testutils." not in m.group(0) and not m.group(0).startswith("var _ "):  # not interface assertions
            funcs.append(m.group(0))
    funcs += _helpers(source)
    imports = _steps_framework(funcs, imports, sched_root)
    code = "".join(funcs)
    kept = []
    for line in imports.splitlines()[1:-1]:
        m = re.match(r'^\t(?:(\w+) )?"([^"]+)"$', line)
        if m and m.group(2) not in own and re.search(rf"\b{m.group(1) or m.group(2).rsplit('/', 1)[-1]}\.", code):
            kept.append(line + "\n")
    imports = "import (\n" + extra + "".join(kept) + ")\n"
    main = f"func main() {{\n\tout := map[string]any{{}}\n{calls}\n\t_ = json.NewEncoder(os.Stdout).Encode(out)\n}}\n"
    return f"package main\n\n{imports}\n" + "".join(funcs) + DUMPER + main, names


_HELPER = re.compile(r"^(func [a-z]\w*\(|type \w+ struct \{)", re.M)


def _helpers(source: str) -> list[str]:
    """The file's lower-case helper functions (makeNode, makePod, ...) and its case types (`type scenario
    struct`) that the tables are built with; not the test plugins' types or anything bound to testutils."""
    out = []
    for m in _HELPER.finditer(source):
        decl = source[m.start():_block_end(source, m.start())] + "\n"
        if not re.search(r"\b(testutils|fwk|framework)\.|\bctx\b", decl):
            out.append(decl)
    return out


def _steps_framework(funcs: list[str], imports: str, sched_root: Path) -> str:
    """podgroup tables are []stepsframework.Step: its types are copied in (the package imports testutils,
    whose etcd dependencies the module cache lacks) and the table's `stepsframework.` dropped."""
    if not any("stepsframework." in f for f in funcs):
        return imports
    path = sched_root / "test" / "integration" / "scheduler" / "podgroup" / "stepsframework" / "stepsframework.go"
    steps = path.read_text()
    types = [m.group(0) + "\n" for m in re.finditer(r"^type \w+ struct \{\n.*?^\}", steps, re.M | re.S)]
    funcs[:] = [f.replace("stepsframework.", "") for f in funcs] + types
    theirs = steps[steps.index("import (") + len("import ("): steps.index(")\n", steps.index("import ("))]
    ours = imports.splitlines()
    extra = [line for line in theirs.splitlines() if line.strip() and line not in ours]
    return "\n".join(ours[:1] + extra + ours[1:]) + "\n"


_CLOSURE = re.compile(r"(\n\t\t\w+: )func\(")


def _var_program(source: str, var: str) -> tuple[str, list[str]]:
    """A program dumping the package-level table `var NAME = ...{...}`: the file's imports, its type and const
    declarations (testutils.TestContext standing in as testContext), the literal with each closure field
    written as nil, and the dumper."""
    start = source.index(f"\nvar {var} = ") + 1
    literal = source[start:_block_end(source, start)]
    while (m := _CLOSURE.search(literal)) is not None:  # a closure field: `Field: func(...) ... { ... },`
        literal = literal[:m.start()] + m.group(1) + "nil" + literal[_block_end(literal, m.end()):]
    decls = [m.group(0) for m in re.finditer(r"^(type \w+ (struct \{\n.*?^\}|\w+)|const \(\n.*?^\))\n", source,
                                             re.M | re.S)]
    body = "".join(decls).replace("*testutils.TestContext", "*testContext") + literal + "\n"
    s = source[source.index("import ("):]
    imports = s[:s.index(")\n") + 2]
    own = {"encoding/json", "fmt", "os", "reflect", "testing", "unsafe"}
    kept = []
    for line in imports.splitlines()[1:-1]:
        m = re.match(r'^\t(?:(\w+) )?"([^"]+)"$', line)
        if m and m.group(2) not in own and re.search(rf"\b{m.group(1) or m.group(2).rsplit('/', 1)[-1]}\.", body):
            kept.append(line + "\n")
    head = "import (\n\t\"encoding/json\"\n\t\"fmt\"\n\t\"os\"\n\t\"reflect\"\n\t\"unsafe\"\n" + "".join(kept) + ")\n"
    dumper = DUMPER.replace("out[c.Type().Field(i).Name] = dumpValue(f)", "out[lowerFirst(c.Type().Field(i).Name)] = dumpValue(f)")
    # its rows are pointers to the case struct
    dumper = dumper.replace("if e := v.Type().Elem(); e.Kind()", "if e := elemOf(v.Type()); e.Kind()")
    dumper += "func elemOf(t reflect.Type) reflect.Type { if t.Elem().Kind() == reflect.Ptr { return t.Elem().Elem() }; " \
              "return t.Elem() }\n"
    dumper += "func lowerFirst(s string) string { return string(s[0]|0x20) + s[1:] }\n"
    main = f"func main() {{\n\tout := map[string]any{{}}\n\tout[\"{var}\"] = dumpTable({var})\n" \
           "\t_ = json.NewEncoder(os.Stdout).Encode(out)\n}\n"
    return f"package main\n\n{head}\n" + body + dumper + main, [var]


def _compact_steps(obj: Any) -> Any:
    """A stepsframework.Step with only its name and its operation (the one field set): RunSteps runs the first
    operation set, and the dump of every unset one (null, "", false) is noise."""
    if isinstance(obj, list):
        return [_compact_steps(x) for x in obj]
    if not isinstance(obj, dict):
        return obj
    if "RunScheduleOne" in obj and "Name" in obj:
        return {k: v for k, v in obj.items() if v not in (None, "", False)}
    return {k: _compact_steps(v) for k, v in obj.items()}


def main() -> int:
    args = sys.argv[1:]
    var = ""
    if "--var" in args:
        at = args.index("--var")
        var = args[at + 1]
        del args[at:at + 2]
    rel, dest = args[0], Path(args[1])
    skip = set(args[2:])
    sched = scheduler_dir()
    if sched is None:
        print("kube-scheduler is not in the Go module cache: run scripts/provision-k8s.sh", file=sys.stderr)
        return 2
    source = (integration_dir(sched) / rel).read_text()
    program, names = _var_program(source, var) if var else _program(source, skip, sched.parent.parent)
    work = Path(tempfile.mkdtemp(prefix="upstream-tables-"))
    try:
        for name in ("go.mod", "go.sum"):
            shutil.copy(ROOT / "tests" / "e2e" / "k8s" / name, work / name)
        gomod = (work / "go.mod").read_text()
        (work / "go.mod").write_text(re.sub(r"^module .*$", "module tables", gomod, count=1, flags=re.M))
        env = {**os.environ, "GOPROXY": "off", "GOFLAGS": "-mod=mod"}
        for _attempt in range(20):
            (work / "main.go").write_text(program)
            done = subprocess.run(["go", "run", "."], cwd=work, capture_output=True, text=True, env=env)
            if done.returncode == 0:
                break
            unused = re.findall(r'"([^"]+)" imported(?: as \w+)? and not used', done.stderr)
            declared = [(int(n), v) for n, v in re.findall(r"main\.go:(\d+):\d+: declared and not used: (\w+)", done.stderr)]
            if not unused and not declared:
                print(done.stderr, file=sys.stderr)
                return 1
            lines = program.split("\n")
            for line, var in sorted(declared, reverse=True):  # `_ = var` before the return of its table function
                end = next(i for i in range(line, len(lines)) if re.fullmatch(r"\treturn (tests|testCases)", lines[i]))
                lines.insert(end, f"\t_ = {var}")
            program = "\n".join(lines)
            for path in unused:
                program = re.sub(rf'^\t(\w+ )?"{re.escape(path)}"\n', "", program, count=1, flags=re.M)
        else:
            return 1
        tables = json.loads(done.stdout)
        if "stepsframework." in source:
            tables = _compact_steps(tables)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps({"source": f"test/integration/scheduler/{rel}", "tables": tables}, indent=1,
                               sort_keys=True) + "\n")
    print(f"{dest}: {', '.join(f'{n} ({len(tables[n])})' for n in names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
