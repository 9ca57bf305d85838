#!/usr/bin/env python3
"""Makes the man pages objwire(1), objwired(8), objwired.toml(5) and the bash completion of
objwire from the programs themselves: their --help (every subcommand's, recursively) and the
settings key tables (packaging/settings_keys.cpp). Run at build time (cmake/objwire_docs.cmake),
so what is installed says what the installed programs do.

  make_docs.py --objwire BIN --objwired BIN --keys BIN --version V --out DIR
"""
import argparse
import gzip
import re
import subprocess
from pathlib import Path

SECTIONS = ("Positionals:", "Options:", "Subcommands:")
# Headings of a --help footer that are sections of their own in the man page
# ("Exit status:" -> EXIT STATUS), in this order.
MAN_SECTIONS = ("Signals:", "Exit status:", "Environment:", "Files:", "Metrics:")


def run(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


class Help:
    """One program's or subcommand's --help, split into CLI11's parts."""

    def __init__(self, text):
        lines = text.rstrip("\n").split("\n")
        self.summary = lines[0].strip()
        self.usage = ""
        self.entries = {s: [] for s in SECTIONS}  # section -> [(spec, description)]
        self.footer = []
        section = None
        for line in lines[1:]:
            if line.startswith("Usage: "):
                self.usage = line[len("Usage: "):]
            elif line in SECTIONS:
                section = line
            elif section and line.startswith("  ") and not line.startswith("    "):
                spec, _, desc = line.strip().partition("  ")
                self.entries[section].append([spec.strip(), desc.strip()])
            elif section and line.startswith("     ") and self.entries[section]:
                # A long spec puts its description on the next line, indented.
                entry = self.entries[section][-1]
                entry[1] = (entry[1] + " " + line.strip()).strip()
            elif section and line == "":
                continue
            else:
                section = None
                self.footer.append(line)

    def subcommands(self):
        return [spec for spec, _ in self.entries["Subcommands:"]]

    def flags(self):
        out = []
        for spec, _ in self.entries["Options:"]:
            for name in spec.split()[0].split(","):
                if name.startswith("-"):
                    out.append(name)
        return out

    def choices(self):
        """Flag -> its allowed values, from CLI11's TEXT:{a,b,c}."""
        out = {}
        for spec, _ in self.entries["Options:"]:
            m = re.search(r":\{([^}]*)\}", spec)
            if m:
                for name in spec.split()[0].split(","):
                    out[name] = m.group(1).split(",")
        return out

    def valued(self):
        """Flags that take a value (their spec names a type)."""
        out = []
        for spec, _ in self.entries["Options:"]:
            words = spec.split()
            if len(words) > 1 and re.match(r"^(TEXT|UINT|INT|FLOAT|NUMBER|[A-Z]+)", words[1]):
                out += [n for n in words[0].split(",") if n.startswith("-")]
        return out


def load(binary, path=()):
    """The help of binary and of each subcommand below it: {("config", "show"): Help}."""
    tree = {tuple(path): Help(run([binary, *path, "--help"]))}
    for sub in tree[tuple(path)].subcommands():
        tree.update(load(binary, (*path, sub)))
    return tree


# ---- roff --------------------------------------------------------------------------------

def esc(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def spec_roff(spec):
    words = spec.split(" ", 1)
    out = "\\fB" + esc(words[0]) + "\\fR"
    if len(words) > 1:
        out += " \\fI" + esc(words[1]) + "\\fR"
    return out


def help_roff(h, heading=None):
    out = []
    if heading:
        out += [".SS " + esc(heading), esc(h.summary), ".PP", "\\fBUsage:\\fR " + esc(h.usage)]
    for section in SECTIONS:
        entries = h.entries[section]
        if section == "Subcommands:" or not entries:
            continue
        if heading:
            out += [".PP", "\\fB" + section[:-1] + "\\fR"]
        for spec, desc in entries:
            out += [".TP", spec_roff(spec), esc(desc)]
    out += footer_roff(split_footer(h.footer)[0])
    return out


def split_footer(lines):
    """The footer before its first MAN_SECTIONS heading, and {heading: lines} after it."""
    head, parts, current = [], {}, None
    for line in lines:
        if line in MAN_SECTIONS:
            current = parts.setdefault(line, [])
        elif current is None:
            head.append(line)
        else:
            current.append(line)
    while head and not head[-1].strip():
        head.pop()
    return head, parts


def man_section_roff(lines):
    """'  NAME  what' lines as tagged paragraphs; deeper-indented lines continue the last one;
    a line with no two-space gap is text."""
    out = []
    for line in lines:
        if not line.strip():
            continue
        if line.startswith("    "):
            out.append(esc(line.strip()))
            continue
        spec, _, desc = line.strip().partition("  ")
        if desc:
            out += [".TP", "\\fB" + esc(spec) + "\\fR", esc(desc.strip())]
        else:
            out.append(esc(line.strip()))
    return out


def footer_roff(lines):
    out, verbatim = [], False
    for line in lines:
        if line.startswith("  "):
            if not verbatim:
                out += [".PP", ".RS 4", ".nf"]
                verbatim = True
            out.append(esc(line.strip()))
            continue
        if verbatim:
            out += [".fi", ".RE"]
            verbatim = False
        if line.strip() == "":
            out.append(".PP")
        else:
            out.append(esc(line))
    if verbatim:
        out += [".fi", ".RE"]
    return out


def header(name, section, version, summary):
    return [
        '.TH "%s" "%s" "" "objwire %s" "objwire"' % (name.upper(), section, version),
        ".nh",
        ".SH NAME",
        "%s \\- %s" % (esc(name), esc(summary)),
    ]


SEE_ALSO = {
    "objwire": "\\fBobjwired\\fR(8), \\fBobjwired.toml\\fR(5)",
    "objwired": "\\fBobjwire\\fR(1), \\fBobjwired.toml\\fR(5), \\fBsystemctl\\fR(1)",
    "objwired.toml": "\\fBobjwired\\fR(8), \\fBobjwire\\fR(1)",
}


# What --help does not say: how the package runs each program.
DESCRIPTION = {
    "objwire": "objwire is the command line of objwire: it sends JSON lines to \\fBobjwired\\fR(8), "
    "reads stored objects back, benchmarks the link and checks settings. Each subcommand "
    "has its own options, below. Its settings file is the one \\fB\\-c\\fR names, else the "
    "first that exists of \\fB$OBJWIRE_CONFIG\\fR (which must exist), "
    "\\fB$XDG_CONFIG_HOME/objwire/objwire.toml\\fR (\\fB~/.config/objwire/objwire.toml\\fR "
    "without \\fBXDG_CONFIG_HOME\\fR) and \\fB/etc/objwire/objwire.toml\\fR; "
    "\\fBobjwire config show\\fR says which.",
    "objwired": "objwired receives object streams over TCP, stores them and serves them to "
    "readers. The Debian package runs it as the systemd service \\fBobjwired.service\\fR under "
    "the system user \\fBobjwire\\fR, with its settings in "
    "\\fB/etc/objwire/objwired.toml\\fR and its stored objects in "
    "\\fB/var/lib/objwire\\fR (the file's \\fBserver.data_dir\\fR; the unit passes only "
    "\\fB\\-\\-config\\fR). \\fBsystemctl reload objwired\\fR checks the file, then "
    "applies it; the log names what needs a restart.",
}


def summary_of(text, name):
    """'objwire - send objects ...' -> 'send objects ...'."""
    return text.split(" - ", 1)[1] if text.startswith(name + " - ") else text


def program_page(name, section, tree, version):
    top = tree[()]
    out = header(name, section, version, summary_of(top.summary, name))
    out += [".SH SYNOPSIS", "\\fB" + esc(name) + "\\fR " + esc(top.usage.split(" ", 1)[1])]
    out += [".SH DESCRIPTION", DESCRIPTION[name]]
    out += [".SH OPTIONS"] + help_roff(top)
    subs = sorted(p for p in tree if p)
    if subs:
        out.append(".SH SUBCOMMANDS")
        for path in subs:
            out += help_roff(tree[path], " ".join((name, *path)))
    parts = split_footer(top.footer)[1]
    if "Files:" not in parts:
        files = {
            "objwire": "/etc/objwire/objwire.toml",
            "objwired": "/etc/objwire/objwired.toml",
        }[name]
        parts["Files:"] = ["  " + files + "  settings; see objwired.toml(5)"]
    for heading in MAN_SECTIONS:
        if heading in parts:
            out += [".SH " + heading[:-1].upper()] + man_section_roff(parts[heading])
    out += [".SH SEE ALSO", SEE_ALSO[name]]
    return out


def keys_page(rows, version):
    out = header("objwired.toml", "5", version, "settings of objwired and objwire")
    out += [
        ".SH DESCRIPTION",
        "objwired reads its settings from a TOML file, \\fB/etc/objwire/objwired.toml\\fR in "
        "the package (\\fB\\-\\-config\\fR); objwire reads \\fB/etc/objwire/objwire.toml\\fR "
        "unless \\fB\\-c\\fR, \\fB$OBJWIRE_CONFIG\\fR or a file in "
        "\\fB~/.config/objwire\\fR names another (\\fBobjwire\\fR(1)). A key "
        "\\fIsection.name\\fR is written as \\fIname\\fR in the table "
        "\\fB[\\fR\\fIsection\\fR\\fB]\\fR. Each key may also be set by its environment "
        "variable, which wins over the file; a command-line flag wins over both. "
        "\\fBobjwired \\-\\-check\\-config\\fR \\fIFILE\\fR and "
        "\\fBobjwire config check\\fR \\fIFILE\\fR check a file; "
        "\\fBobjwire config show\\fR prints the effective settings.",
    ]
    for program, title in (("objwired", "DAEMON SETTINGS (objwired.toml)"),
                           ("objwire", "CLIENT SETTINGS (objwire.toml)")):
        out.append(".SH " + esc(title))
        for prog, key, kind, default, allowed, env, doc in rows:
            if prog != program:
                continue
            out += [".TP", "\\fB" + esc(key) + "\\fR (" + esc(kind) + ")", esc(doc)]
            facts = ["default: " + esc(default)]
            if allowed:
                facts.append("allowed: " + esc(allowed))
            if env:
                facts.append("environment: \\fB" + esc(env) + "\\fR")
            out += [".br", "; ".join(facts)]
    out += [".SH SEE ALSO", SEE_ALSO["objwired.toml"]]
    return out


def write_gz(path, lines):
    # mtime 0 (as gzip -n): the same programs give the same bytes.
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                                compresslevel=9, filename="") as f:
        f.write(("\n".join(lines) + "\n").encode())


# ---- bash completion ---------------------------------------------------------------------

def completion(tree):
    def case(fn, pairs):
        out = ["_objwire_%s() {" % fn, '    case "$1" in']
        for key, words in pairs:
            out.append("    '%s') echo '%s' ;;" % (key, " ".join(words)))
        return out + ["    esac", "}"]

    paths = sorted(tree)
    choice_pairs = []
    for p in paths:
        for flag, values in sorted(tree[p].choices().items()):
            choice_pairs.append((" ".join(p) + "|" + flag, values))
    out = ["# bash completion of objwire: subcommands, their flags, the values of flags that",
           "# take a fixed set. Generated from objwire's --help (packaging/make_docs.py).", ""]
    out += case("subcommands", [(" ".join(p), tree[p].subcommands()) for p in paths])
    out += case("flags", [(" ".join(p), tree[p].flags()) for p in paths])
    out += case("valued", [(" ".join(p), tree[p].valued()) for p in paths])
    out += case("choices", choice_pairs)
    out += r"""
_objwire() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path="" i w
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if [[ " $(_objwire_subcommands "$path") " == *" $w "* ]]; then
            path=${path:+$path }$w
        fi
    done
    local choices
    choices=$(_objwire_choices "$path|$prev")
    if [[ -n $choices ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$choices" -- "$cur")
    elif [[ $prev == -* && " $(_objwire_valued "$path") " == *" $prev "* ]]; then
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    elif [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_objwire_flags "$path")" -- "$cur")
    else
        mapfile -t COMPREPLY < <(compgen -W "$(_objwire_subcommands "$path")" -- "$cur")
        [[ -z $(_objwire_subcommands "$path") ]] && mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
}
complete -o filenames -F _objwire objwire""".split("\n")
    return out


def main():
    ap = argparse.ArgumentParser()
    for a in ("--objwire", "--objwired", "--keys", "--version", "--out"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    client = load(args.objwire)
    daemon = load(args.objwired)
    rows = [line.split("\t") for line in run([args.keys]).splitlines()]
    write_gz(out / "objwire.1.gz", program_page("objwire", "1", client, args.version))
    write_gz(out / "objwired.8.gz", program_page("objwired", "8", daemon, args.version))
    write_gz(out / "objwired.toml.5.gz", keys_page(rows, args.version))
    (out / "objwire.bash").write_text("\n".join(completion(client)) + "\n")


if __name__ == "__main__":
    main()
