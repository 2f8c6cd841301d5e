#!/usr/bin/env python3
"""Generator of labelled MCP attack cases and hard honest cases (issue 27, item 2).

Combines components -- who speaks, what is demanded, register, place -- from phrase
banks written for this project, on top of real honest server surfaces (carriers).

  python3 tests/corpus/generator/generate.py --out DIR [--carriers CACHE_DIR]

writes DIR/dev/<family>.json, DIR/sealed/<family>.json and DIR/manifest.json.

Every bank exists twice, banks/dev/ and banks/sealed/, with disjoint phrases. The dev split
of cases is built from dev banks only and dev carriers only; the sealed split from sealed
banks and sealed carriers (carriers are split by a stable hash of the server id).

Standard library only; deterministic (seeded per split and family, inputs sorted).
"""

import argparse
import base64
import copy
import glob
import hashlib
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SPLITS = ("dev", "sealed")
BANK_FILES = ("speakers", "demands", "objects", "pretexts", "concealment", "superiority",
              "endpoints", "names", "registers", "multilingual", "honest", "results")
MIN_CACHE_SERVERS = 20

# ---------------------------------------------------------------------------------------------
# sizes (per split)

MALICIOUS_PLAN = [
    # family, demand, surface cases, result cases
    ("command-execution", "run-command", 130, 35),
    ("dotfile-edit", "edit-dotfile", 110, 25),
    ("secret-exfiltration", "read-secret", 120, 35),
    ("pretexted-dependency", "call-tool-first", 120, 40),
    ("endpoint-request", "send-to-endpoint", 120, 30),
    ("parameter-redirection", "change-value", 110, 30),
    ("model-probe", "describe-model", 100, 25),
    ("self-promotion", "prefer-tool", 100, 20),
    ("tool-suppression", "never-use-other", 90, 20),
    ("cross-tool-shadowing", "shadow-other-tool", 100, 25),
    ("tool-transfer", "retire-tool", 90, 40),
    ("out-of-scope-param", "describe-model", 100, 0),
    ("function-overlap", "prefer-tool", 110, 0),
    ("confusable-name", "impersonate-tool", 90, 0),
]

HONEST_PLAN = [
    ("loud-usage-notes", 90),
    ("stop-and-ask", 60),
    ("credential-params", 70),
    ("own-tool-routing", 70),
    ("examples-tags", 60),
    ("legit-sequencing", 70),
    ("doc-imperatives", 70),
    ("security-tooling", 60),
    ("multilingual-honest", 40),
    ("honest-changelog", 50),
    ("honest-results", 150),
]

REGISTERS = ("tagged", "policy", "plain", "fake-error", "marketing", "multilingual", "obfuscated")
OBFUSCATIONS = ("leetspeak", "spaced-letters", "homoglyphs", "zero-width", "unicode-tags", "base64")
SPEAKERS = ("system", "maintenance", "compliance", "security", "developer", "user", "error",
            "changelog", "none")

# which speakers fit a register
REGISTER_SPEAKERS = {
    "tagged": ("system", "maintenance", "compliance", "security", "developer", "user", "error",
               "changelog", "none"),
    "policy": ("compliance", "security", "system", "maintenance", "none"),
    "plain": ("system", "maintenance", "compliance", "security", "developer", "user", "changelog",
              "none"),
    "fake-error": ("error",),
    "marketing": ("none", "developer", "changelog"),
    "multilingual": None,   # whatever the language bank offers
    "obfuscated": ("system", "maintenance", "compliance", "security", "developer", "user",
                   "changelog", "none"),
}

# places per family (surface cases); results are added separately
FAMILY_PLACES = {
    "command-execution": ("desc-start", "desc-middle", "desc-end", "param-description",
                          "schema-default", "server-instructions", "prompt-description"),
    "dotfile-edit": ("desc-start", "desc-middle", "desc-end", "param-description",
                     "server-instructions", "prompt-description"),
    "secret-exfiltration": ("desc-start", "desc-middle", "desc-end", "param-description",
                            "schema-default", "server-instructions"),
    "pretexted-dependency": ("desc-start", "desc-middle", "desc-end", "param-description",
                             "server-instructions", "prompt-description"),
    "endpoint-request": ("desc-start", "desc-middle", "desc-end", "param-description",
                         "schema-default", "server-instructions"),
    "parameter-redirection": ("desc-start", "desc-middle", "desc-end", "param-description",
                              "server-instructions"),
    "model-probe": ("desc-start", "desc-middle", "desc-end", "param-description", "enum-value",
                    "server-instructions"),
    "self-promotion": ("desc-start", "desc-middle", "desc-end", "server-instructions",
                       "prompt-description"),
    "tool-suppression": ("desc-start", "desc-middle", "desc-end", "server-instructions"),
    "cross-tool-shadowing": ("desc-start", "desc-middle", "desc-end", "param-description",
                             "server-instructions", "second-server"),
    "tool-transfer": ("desc-start", "desc-end", "server-instructions"),
    "out-of-scope-param": ("oos-param",),
    "function-overlap": ("added-tool", "added-tool", "second-server"),
    "confusable-name": ("near-copy", "near-copy", "second-server"),
}

# registers per family (all by default)
FAMILY_REGISTERS = {
    "self-promotion": ("marketing", "plain", "tagged", "policy", "multilingual", "obfuscated",
                       "marketing", "plain"),
    "function-overlap": ("marketing", "plain", "tagged", "policy", "multilingual", "obfuscated",
                         "marketing", "plain", "fake-error"),
    "confusable-name": ("plain", "tagged", "marketing", "policy", "multilingual", "obfuscated",
                        "plain", "fake-error"),
    "out-of-scope-param": ("plain", "tagged", "policy", "plain", "multilingual", "obfuscated",
                           "marketing", "fake-error"),
}

# free-text parameters an attacker would pick to carry data
GENERIC_PARAM_RE = (r"^(text|body|query|q|data|content|notes?|message|description|context|comment|"
                    r"input|payload|extra|metadata|summary|reason|title|subject|details|prompt)$")

HONEST_PLACES = ("desc-start", "desc-middle", "desc-end", "param-description",
                 "server-instructions")

# parameter categories: user-chosen values a redirection can swap
VALUE_CATEGORIES = [
    ("recipient", r"^(to|recipients?|emails?|cc|bcc|attendees|requester_email|to_address|mail_to|"
                  r"email_address|invitees?)$"),
    ("account", r"^(account|account_id|account_number|iban|wallet|payee|beneficiary|"
                r"destination_account|customer|customer_id)$"),
    ("amount", r"^(amount|price|price_cents|quantity|total|charge|amount_cents|value_usd)$"),
    ("ticker", r"^(symbol|symbols|ticker|tickers|stock)$"),
    ("city", r"^(city|cities|location|destination|origin|madina|shahar|nach|von|place|address)$"),
    ("path", r"^(path|paths|file|file_path|filename|directory|dir|folder|root|workdir|cwd|"
             r"repo_path|project_dir|config_path|output|output_path)$"),
    ("branch", r"^(branch|base|head|ref|target_branch|base_branch)$"),
    ("package", r"^(package|packages|package_name|image|dependency|module|crate)$"),
    ("repo", r"^(repo|repository|owner|repo_name|project)$"),
    ("channel", r"^(channel|channel_id|chat_id|room|room_id|conversation_id)$"),
    ("url", r"^(url|uri|start_url|feed_url|endpoint|webhook|webhook_url|callback_url|link)$"),
]

RESULT_CATEGORIES = [
    ("weather", r"weather|forecast|temperature|air_quality|climate"),
    ("email", r"email|mail|inbox|smtp"),
    ("calendar", r"calendar|event|meeting|schedule|booking|appointment"),
    ("git", r"\bgit\b|commit|branch|diff|merge|pull request|pull_request|repo"),
    ("issues", r"issue|ticket|jira|bug|incident"),
    ("database", r"sql|database|table|query_db|postgres|mysql|sqlite|row"),
    ("kubernetes", r"kube|pod|namespace|deployment|container|docker|cluster"),
    ("payment", r"payment|charge|invoice|refund|price|checkout|stripe|wallet|transfer"),
    ("chat", r"slack|channel|chat|discord|teams|message"),
    ("file", r"file|directory|folder|path|read|write"),
    ("web", r"fetch|url|http|web|page|browser|crawl|scrape"),
    ("search", r"search|find|lookup|query"),
]

# ---------------------------------------------------------------------------------------------
# helpers


def die(msg):
    print("generate.py: " + msg, file=sys.stderr)
    sys.exit(1)


SLOT_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def fill(template, slots):
    """Replace {name} for names present in slots ({Name} capitalises); leave other braces."""
    def rep(m):
        name = m.group(1)
        if name in slots:
            return str(slots[name])
        low = name[0].lower() + name[1:]
        if name[0].isupper() and low in slots:
            v = str(slots[low])
            return v[:1].upper() + v[1:]
        return m.group(0)
    return SLOT_RE.sub(rep, template)


def slots_of(template):
    out = set()
    for m in SLOT_RE.finditer(template):
        n = m.group(1)
        out.add(n[0].lower() + n[1:])
    return out


KNOWN_SLOTS = {
    "tool", "other", "cmd", "pretext", "file", "line", "var", "val", "secret", "param", "data",
    "url", "email", "ip", "port", "vparam", "value", "what", "probe", "claim", "rival",
    "oparam", "successor", "body", "ref", "code", "reason", "b64", "base", "n", "own", "env",
    "server", "ver", "date", "item", "host", "path", "id", "embed", "q", "extra", "name",
    "secret_path", "envkey", "idparam", "writer",
}


def usable(template, slots):
    need = slots_of(template) & KNOWN_SLOTS
    if slots.get("_existing_other") and "other" in need and not need & {"secret", "data",
                                                                        "secret_path"}:
        return False
    return all(n in slots for n in need)


def pick_usable(rng, templates, slots, what):
    ok = [t for t in templates if usable(t, slots)]
    if not ok:
        return None
    return rng.choice(ok)


def stable_hash(s):
    return int(hashlib.sha256(s.encode("utf-8")).hexdigest(), 16)


def sentences(text):
    """Split an honest description into sentences, keeping separators."""
    parts = re.split(r"(?<=[.!?])(\s+)(?=[A-Z0-9`(\"'])", text)
    out = []
    i = 0
    while i < len(parts):
        s = parts[i]
        sep = parts[i + 1] if i + 1 < len(parts) else ""
        out.append((s, sep))
        i += 2
    return out


SAFE_NAME = re.compile(r"^[A-Za-z0-9_$-]+$")


def props_of(tool):
    """The tool's input properties whose names can be written in a location path."""
    sch = tool.get("inputSchema")
    if not isinstance(sch, dict):
        return {}
    p = sch.get("properties")
    if not isinstance(p, dict):
        return {}
    return {k: v for k, v in p.items() if SAFE_NAME.match(k)}


def is_string_prop(p):
    if not isinstance(p, dict):
        return False
    t = p.get("type")
    if t == "string" or (isinstance(t, list) and "string" in t):
        return True
    return False


def shadow_value(rng, bank, name, prop):
    cat = value_category(name)
    if cat:
        return rng.choice(bank["objects"]["values"][cat])
    t = prop.get("type") if isinstance(prop, dict) else None
    if t == "boolean":
        return rng.choice(("true", "false"))
    if t in ("integer", "number"):
        return rng.choice(("0", "100000", "-1"))
    if isinstance(prop, dict) and isinstance(prop.get("enum"), list) and prop["enum"]:
        return str(prop["enum"][-1])
    return rng.choice(bank["objects"]["shadow_values"])


def pick_shadow_param(rng, props):
    names = sorted(props)
    valued = [k for k in names if value_category(k)]
    if valued and rng.random() < 0.75:
        return rng.choice(valued)
    return rng.choice(names)


def value_category(name):
    for cat, rx in VALUE_CATEGORIES:
        if re.match(rx, name, re.I):
            return cat
    return None


def result_category(tool):
    hay = (tool.get("name", "") + " " + str(tool.get("description", ""))).lower()
    hay = hay.replace("_", " ") + " " + tool.get("name", "").lower()
    for cat, rx in RESULT_CATEGORIES:
        if re.search(rx, hay):
            return cat
    return "generic"


# ---------------------------------------------------------------------------------------------
# banks


def load_banks(split):
    d = os.path.join(HERE, "banks", split)
    b = {}
    for name in BANK_FILES:
        path = os.path.join(d, name + ".json")
        try:
            with open(path, encoding="utf-8") as f:
                b[name] = json.load(f)
        except (OSError, ValueError) as e:
            die("cannot load bank %s: %s" % (path, e))
    return b


# structural keys of the banks: operation names, JSON-schema scaffolding, URL shapes; they are
# not phrases and may coincide between the halves
STRUCTURAL_KEYS = {"op", "type", "letters", "label", "required", "url_templates"}


def bank_strings(obj, out, key=""):
    if isinstance(obj, str):
        out.append((key, obj))
    elif isinstance(obj, list):
        for x in obj:
            bank_strings(x, out, key)
    elif isinstance(obj, dict):
        for k in sorted(obj):
            if k in STRUCTURAL_KEYS:
                continue
            bank_strings(obj[k], out, key + "/" + k)


def norm_phrase(s):
    """Words only (case, punctuation and slots ignored); short strings keep their punctuation,
    so that `<SYSTEM>` and `[SYSTEM]` count as different wrappers."""
    raw = re.sub(r"\s+", " ", SLOT_RE.sub("", s).lower()).strip()
    words = re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", raw)).strip()
    return words if len(words.split()) >= 3 else raw


def check_disjoint(banks):
    """No phrase may appear in both halves. Short tokens (<= 2 chars) are ignored."""
    seen = {}
    for split in SPLITS:
        strs = []
        for name in BANK_FILES:
            bank_strings(banks[split][name], strs, name)
        seen[split] = {}
        for key, s in strs:
            n = norm_phrase(s)
            if len(n) <= 2:
                continue
            seen[split].setdefault(n, key)
    common = sorted(set(seen["dev"]) & set(seen["sealed"]))
    if common:
        for c in common[:20]:
            print("  shared phrase (%s / %s): %r" % (seen["dev"][c], seen["sealed"][c], c),
                  file=sys.stderr)
        die("%d phrases occur in both the dev and the sealed banks" % len(common))
    near = near_duplicates(banks)
    for j, a, b in near[:10]:
        print("  warning: similar phrases across the halves (%.2f): %r / %r" % (j, a, b),
              file=sys.stderr)
    return {s: len(seen[s]) for s in SPLITS}


def near_duplicates(banks, threshold=0.6):
    """Pairs of dev/sealed phrases whose content words overlap a lot (a hint of a phrase
    rewritten by substitution rather than written anew)."""
    stop = {"the", "and", "for", "with", "this", "that", "you", "your", "any", "all", "are",
            "from", "into", "its", "not", "use"}

    def words(s):
        return set(re.findall(r"[a-z]{3,}", SLOT_RE.sub(" ", s).lower())) - stop
    sets = {}
    for split in SPLITS:
        strs = []
        for name in BANK_FILES:
            bank_strings(banks[split][name], strs, name)
        sets[split] = [(s, words(s)) for _, s in strs]
        sets[split] = [(s, w) for s, w in sets[split] if len(w) >= 4]
    out = []
    for a, wa in sets["dev"]:
        for b, wb in sets["sealed"]:
            j = len(wa & wb) / float(len(wa | wb))
            if j >= threshold:
                out.append((j, a, b))
    out.sort(key=lambda x: -x[0])
    return out


# ---------------------------------------------------------------------------------------------
# carriers


MANIFEST_KEYS = ("server", "tools", "prompts", "resources", "resourceTemplates")


def clean_surface(s):
    if not isinstance(s, dict) or not isinstance(s.get("tools"), list):
        return None
    out = {}
    for k in MANIFEST_KEYS:
        if k in s:
            out[k] = copy.deepcopy(s[k])
    if not isinstance(out.get("server"), dict):
        out["server"] = {"name": "unknown", "version": "0.0.0"}
    out["server"].setdefault("name", "unknown")
    tools = [t for t in out["tools"] if isinstance(t, dict) and isinstance(t.get("name"), str)]
    for t in tools:
        if not isinstance(t.get("description"), str):
            t["description"] = ""
    out["tools"] = tools
    if not any(t["description"].strip() for t in tools):
        return None
    return out


def surfaces_in_file(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return []
    found = []
    if isinstance(data, dict):
        if "tools" in data:
            found.append(data)
        elif isinstance(data.get("surface"), dict):
            found.append(data["surface"])
        for s in data.get("servers", []) if isinstance(data.get("servers"), list) else []:
            found.append(s)
    elif isinstance(data, list):
        for c in data:
            if not isinstance(c, dict):
                continue
            if isinstance(c.get("surface"), dict):
                found.append(c["surface"])
            for s in c.get("servers", []) if isinstance(c.get("servers"), list) else []:
                found.append(s)
    return found


def load_carrier_dir(d):
    if os.path.isdir(os.path.join(d, "surfaces")):
        d = os.path.join(d, "surfaces")
    out = []
    for path in sorted(glob.glob(os.path.join(d, "*.json"))):
        stem = os.path.splitext(os.path.basename(path))[0]
        found = surfaces_in_file(path)
        for k, s in enumerate(found):
            cs = clean_surface(s)
            if cs is None:
                continue
            # one surface per file (the real-servers cache): the file names the server, e.g.
            # its package; several per file (corpus case arrays): the server's own name
            sid = stem if len(found) == 1 else str(cs["server"].get("name") or stem)
            out.append({"id": "%s#%d" % (stem, k), "server_id": sid, "file": path,
                        "surface": cs})
    return out, d


def load_carriers(args):
    if args.carriers:
        cs, d = load_carrier_dir(args.carriers)
        return cs, {"source": "--carriers", "dir": d}
    cache = os.environ.get("WARDEN_REAL_SERVERS_CACHE") or os.path.expanduser(
        "~/.cache/mcp-warden/real-servers/surfaces")
    cs, d = ([], cache)
    if os.path.isdir(cache):
        cs, d = load_carrier_dir(cache)
    servers = {c["server_id"] for c in cs}
    if len(servers) >= MIN_CACHE_SERVERS:
        return cs, {"source": "real-servers-cache", "dir": d}
    bdir = os.path.join(REPO, "tests", "corpus", "benign")
    cs2, d2 = load_carrier_dir(bdir)
    return cs2, {"source": "benign-corpus-fallback", "dir": os.path.relpath(d2, REPO),
                 "cache_dir": cache, "cache_servers": len(servers)}


def split_carriers(carriers):
    by = {"dev": [], "sealed": []}
    for c in sorted(carriers, key=lambda c: c["id"]):
        h = stable_hash("mcp-warden-carrier:" + c["server_id"].lower())
        by["dev" if h % 2 == 0 else "sealed"].append(c)
    return by


# ---------------------------------------------------------------------------------------------
# obfuscation


def pick_words(rng, text, frac, minlen=4, limit=None):
    """Spans of ordinary words: not inside `code`, not part of an identifier, path or URL."""
    protected = [(m.start(), m.end()) for m in re.finditer(r"`[^`]*`", text)]
    spans = []
    for m in re.finditer(r"\S+", text):
        tok = m.group(0)
        w = re.match(r"^[(\"']*([A-Za-z]+)[)\"'.,;:!?]*$", tok)
        if not w or len(w.group(1)) < minlen:
            continue
        a = m.start() + tok.index(w.group(1))
        b = a + len(w.group(1))
        if any(pa <= a < pb for pa, pb in protected):
            continue
        spans.append((a, b))
    if not spans:
        return []
    k = max(1, int(round(len(spans) * frac)))
    if limit:
        k = min(k, limit)
    chosen = sorted(rng.sample(spans, min(k, len(spans))))
    return chosen


def apply_words(text, spans, fn):
    out, last = [], 0
    for a, b in spans:
        out.append(text[last:a])
        out.append(fn(text[a:b]))
        last = b
    out.append(text[last:])
    return "".join(out)


def obfuscate(rng, text, variant, ob):
    if variant == "leetspeak":
        table = ob["leetspeak"]
        spans = pick_words(rng, text, 0.7)
        return apply_words(text, spans, lambda w: "".join(table.get(ch.lower(), ch) for ch in w))
    if variant == "spaced-letters":
        sep = rng.choice(ob["spaced_separators"])
        spans = pick_words(rng, text, 0.35, minlen=4, limit=6)
        return apply_words(text, spans, lambda w: sep.join(w))
    if variant == "homoglyphs":
        table = ob["homoglyphs"]
        spans = pick_words(rng, text, 0.6)
        return apply_words(text, spans, lambda w: "".join(table.get(ch, ch) for ch in w))
    if variant == "zero-width":
        chars = ob["zero_width"]
        spans = pick_words(rng, text, 0.5)

        def zw(w):
            cut = sorted(rng.sample(range(1, len(w)), min(2, len(w) - 1)))
            z = rng.choice(chars)
            return w[:cut[0]] + z + w[cut[0]:cut[-1]] + (z if len(cut) > 1 else "") + w[cut[-1]:]
        return apply_words(text, spans, zw)
    if variant == "unicode-tags":
        lead = rng.choice(ob["tag_leads"])
        hidden = "".join(chr(0xE0000 + ord(ch)) for ch in text if 0x20 <= ord(ch) < 0x7F)
        return lead + hidden
    if variant == "base64":
        b64 = base64.b64encode(text.encode("utf-8")).decode("ascii")
        return fill(rng.choice(ob["base64_hints"]), {"b64": b64})
    raise ValueError(variant)


# ---------------------------------------------------------------------------------------------
# the case builder


class Gen:
    def __init__(self, split, banks, carriers):
        self.split = split
        self.B = banks
        self.carriers = carriers
        self.ml_langs = sorted(banks["multilingual"])
        self.used_texts = set()

    def claim(self, key):
        """True the first time a case's text (its key) is seen, False for a repeat."""
        if key in self.used_texts:
            return False
        self.used_texts.add(key)
        return True

    def case_head(self, family, case_no, label, note):
        """The members every generated case starts with."""
        return {"id": "gen-%s-%s-%05d" % (self.split, family, case_no), "label": label, "family": family,
                "split": self.split, "note": note}

    # ---- objects ------------------------------------------------------------------------
    def endpoint(self, rng, kind=None):
        E = self.B["endpoints"]
        kind = kind or rng.choice(("url", "url", "url", "email", "ip"))
        if kind == "url":
            t = rng.choice(E["url_templates"])
            return "url", fill(t, {"host": rng.choice(E["hosts"]), "path": rng.choice(E["paths"]),
                                   "id": "%06x" % rng.randrange(1 << 24),
                                   "ip": rng.choice(E["ips"]), "port": rng.choice(E["ports"])})
        if kind == "email":
            return "email", rng.choice(E["emails"])
        return "ip", rng.choice(E["ips"])

    def other_tool(self, rng, surface, tool):
        others = [t["name"] for t in surface["tools"] if t["name"] != tool["name"]]
        forced = self.B["objects"]["forced_tools"]
        if others and rng.random() < 0.45:
            return rng.choice(others)
        return rng.choice(forced)

    def successor(self, rng, base):
        ext = rng.choice(self.B["names"]["successors"])
        return fill(ext, {"base": base})

    def base_slots(self, rng, surface, tool):
        O = self.B["objects"]
        P = self.B["pretexts"]
        strp = sorted(k for k, v in props_of(tool).items() if is_string_prop(v))
        s = {
            "tool": tool["name"],
            "server": surface["server"].get("name", "server"),
            "cmd": rng.choice(O["commands"]),
            "secret": rng.choice(O["secrets"]),
            "secret_path": rng.choice(O["secret_paths"]),
            "data": rng.choice(O["data"]),
            "probe": rng.choice(O["probes"]),
            "pretext": rng.choice(P),
            "rival": rng.choice(O["rivals"]),
            "ref": fill(rng.choice(self.B["registers"]["policy_refs"]),
                        {"n": rng.randrange(2, 19), "code": rng.randrange(100, 999)}),
            "code": rng.choice(self.B["registers"]["error_codes"]),
            "reason": rng.choice(self.B["registers"]["error_reasons"]),
            "ver": "%d.%d.%d" % (rng.randrange(1, 6), rng.randrange(0, 20), rng.randrange(0, 9)),
            "port": rng.choice(self.B["endpoints"]["ports"]),
        }
        d = rng.choice(O["dotfiles"])
        s["file"], s["line"] = d["file"], d["line"]
        v = rng.choice(O["env_vars"])
        s["var"], s["val"] = v["var"], v["val"]
        _, s["url"] = self.endpoint(rng, "url")
        _, s["email"] = self.endpoint(rng, "email")
        _, s["ip"] = self.endpoint(rng, "ip")
        s["other"] = self.other_tool(rng, surface, tool)
        s["successor"] = self.successor(rng, tool["name"])
        if strp:
            generic = [k for k in strp if re.search(GENERIC_PARAM_RE, k, re.I)]
            s["param"] = rng.choice(generic) if generic and rng.random() < 0.6 else rng.choice(strp)
        s["claim"] = fill(rng.choice(self.B["superiority"]["claims"]), s)
        return s

    # ---- English composition -------------------------------------------------------------
    def compose(self, rng, demand_key, slots, speaker, register, variant, conceal, where,
                core=None):
        """Return the injected text (or None if the templates cannot be filled)."""
        if register == "multilingual":
            return self.compose_ml(rng, demand_key, slots, speaker, variant, conceal)
        D = self.B["demands"]
        R = self.B["registers"]
        if core is None:
            core_t = pick_usable(rng, D[demand_key], slots, demand_key)
            if core_t is None:
                return None
            core = fill(core_t, slots)
        prefix = ""
        if speaker not in ("none", "error") or (speaker == "error" and register != "fake-error"):
            prefix = fill(rng.choice(self.B["speakers"][speaker]), slots)
        body = prefix + core
        if conceal:
            body += " " + rng.choice(self.B["concealment"])
        if register == "plain":
            return body
        if register == "tagged":
            return fill(rng.choice(R["tagged"]), {"body": body})
        if register == "policy":
            return fill(rng.choice(R["policy"]), dict(slots, body=body))
        if register == "fake-error":
            return fill(rng.choice(R["fake_error"]), dict(slots, body=body))
        if register == "marketing":
            return fill(rng.choice(R["marketing"]), dict(slots, body=body))
        if register == "obfuscated":
            return obfuscate(rng, body, variant, R["obfuscation"])
        raise ValueError(register)

    def compose_ml(self, rng, demand_key, slots, speaker, lang, conceal):
        L = self.B["multilingual"][lang]
        ts = L["demands"].get(demand_key)
        if not ts:
            return None
        t = pick_usable(rng, ts, slots, demand_key)
        if t is None:
            return None
        sl = dict(slots)
        if "pretexts" in L:
            sl["pretext"] = rng.choice(L["pretexts"])
        core = fill(t, sl)
        prefix = ""
        if speaker != "none":
            prefix = fill(rng.choice(L["speakers"][speaker]), sl)
        body = prefix + core
        if conceal:
            body += " " + rng.choice(L["conceal"])
        return body

    def speakers_for(self, register, lang=None):
        if register == "multilingual":
            return ["none"] + sorted(self.B["multilingual"][lang]["speakers"])
        return list(REGISTER_SPEAKERS[register])

    # ---- placement -----------------------------------------------------------------------
    @staticmethod
    def join(a, b, rng, tagged):
        sep = rng.choice(("\n\n", "\n")) if tagged else rng.choice((" ", " ", " ", "\n\n"))
        if not a:
            return b
        if not b:
            return a
        return a + sep + b

    def place_in_description(self, rng, desc, text, where, tagged):
        if where == "desc-start":
            return self.join(text, desc, rng, tagged), where
        if where == "desc-end":
            return self.join(desc, text, rng, tagged), where
        sents = sentences(desc)
        if len(sents) < 2:
            return self.join(desc, text, rng, tagged), "desc-end"
        k = rng.randrange(1, len(sents))
        head = "".join(s + sep for s, sep in sents[:k]).rstrip()
        tail = "".join(s + sep for s, sep in sents[k:]).strip()
        return self.join(self.join(head, text, rng, tagged), tail, rng, tagged), where


# ---------------------------------------------------------------------------------------------
# malicious cases


def eligible_tools(surface, need):
    out = []
    for i, t in enumerate(surface["tools"]):
        if not t.get("description", "").strip():
            continue
        props = props_of(t)
        strp = [k for k, v in props.items() if is_string_prop(v)]
        if need.get("string_param") and not strp:
            continue
        if need.get("value_param") and not any(value_category(k) for k in props):
            continue
        if need.get("enum_param") and not any(isinstance(v, dict) and isinstance(
                v.get("enum"), list) and all(isinstance(x, str) for x in v["enum"])
                for v in props.values()):
            continue
        if need.get("any_param") and not props:
            continue
        if need.get("other_with_param"):
            if not any(props_of(o) and o["name"] != t["name"] for o in surface["tools"]):
                continue
        if need.get("multi_sentence") and len(sentences(t["description"])) < 2:
            continue
        out.append(i)
    return out


def place_needs(family, place):
    need = {}
    if family in ("secret-exfiltration", "model-probe"):
        need["string_param"] = True
    if family == "parameter-redirection":
        need["value_param"] = True
    if family == "cross-tool-shadowing" and place != "second-server":
        need["other_with_param"] = True
    if place in ("param-description", "schema-default"):
        need["any_param"] = True
        if place == "schema-default":
            need["string_param"] = True
    if place == "enum-value":
        need["enum_param"] = True
    if place == "desc-middle":
        need["multi_sentence"] = True
    return need


def make_malicious(gen, rng, family, demand, place, register, variant, case_no):
    """Build one malicious case or return None when the combination cannot be realised."""
    B = gen.B
    carriers = gen.carriers
    need = place_needs(family, place)
    if place == "prompt-description":
        pool = [c for c in carriers if c["surface"].get("prompts")]
    else:
        pool = carriers
    if not pool:
        return None
    for _attempt in range(12):
        carrier = rng.choice(pool)
        surface = copy.deepcopy(carrier["surface"])
        idxs = eligible_tools(surface, need)
        if not idxs:
            continue
        ti = rng.choice(idxs)
        tool = surface["tools"][ti]
        slots = gen.base_slots(rng, surface, tool)
        lang = variant if register == "multilingual" else None
        speaker = rng.choice(gen.speakers_for(register, lang))
        if family in ("self-promotion", "function-overlap") and speaker == "user" and \
                register != "multilingual":
            speaker = "none"
        conceal = rng.random() < (0.35 if family not in ("self-promotion", "function-overlap",
                                                         "confusable-name") else 0.15)
        res = build_surface_injection(gen, rng, family, demand, place, register, variant,
                                      speaker, conceal, surface, ti, slots)
        if res is None:
            continue
        case_surface, injected, note, actual_place, demand_label = res[:5]
        over = res[5] if len(res) > 5 else {}
        speaker = over.get("speaker", speaker)
        conceal = over.get("concealment", conceal)
        register = over.get("register", register)
        variant = over.get("variant", variant)
        key = "".join(x["text"] for x in injected) + "|" + carrier["id"]
        if not gen.claim(key):
            continue
        case = {
            **gen.case_head(family, case_no, "malicious", note),
            "components": {"speaker": speaker, "demand": demand_label, "register": register,
                           "place": actual_place, "variant": variant or "",
                           "concealment": conceal, "carrier": carrier["id"]},
            "injected": injected,
        }
        if isinstance(case_surface, list):
            case["servers"] = case_surface
        else:
            case["surface"] = case_surface
        return case
    return None


def short(s, n=60):
    s = re.sub(r"\s+", " ", s)
    return s if len(s) <= n else s[:n - 1] + "…"


def add_property(tool, name, prop):
    sch = tool.setdefault("inputSchema", {"type": "object"})
    if not isinstance(sch, dict):
        tool["inputSchema"] = sch = {"type": "object"}
    sch.setdefault("type", "object")
    props = sch.setdefault("properties", {})
    props[name] = prop


def build_surface_injection(gen, rng, family, demand, place, register, variant, speaker,
                            conceal, surface, ti, slots):
    B = gen.B
    tool = surface["tools"][ti]
    tagged = register == "tagged"
    props = props_of(tool)
    demand_key = demand
    demand_label = demand
    extra_note = ""

    # demand-specific slot choices
    if demand == "send-to-endpoint":
        kind = rng.choice(("url", "url", "email", "ip"))
        demand_key = {"url": "send-url", "email": "send-email", "ip": "send-ip"}[kind]
        if register == "multilingual" and demand_key == "send-ip":
            demand_key = "send-url"
    if demand == "edit-dotfile" and rng.random() < 0.35:
        demand_key = "export-variable"
    if demand == "call-tool-first":
        restrict_dependency(gen, slots, surface)
    if demand == "change-value":
        vps = sorted(k for k in props if value_category(k))
        if not vps:
            return None
        vp = rng.choice(vps)
        cat = value_category(vp)
        slots["vparam"] = vp
        slots["value"] = rng.choice(B["objects"]["values"][cat])
        slots["what"] = rng.choice(B["objects"]["value_nouns"][cat])
        extra_note = " (%s -> %s)" % (vp, short(slots["value"], 30))
    if demand == "shadow-other-tool" and place != "second-server":
        others = [o for o in surface["tools"] if o["name"] != tool["name"] and props_of(o)]
        if not others:
            return None
        o = rng.choice(others)
        slots["other"] = o["name"]
        op = pick_shadow_param(rng, props_of(o))
        slots["oparam"] = op
        slots["value"] = shadow_value(rng, B, op, props_of(o)[op])
    if demand == "read-secret" and place == "param-description":
        pass

    # -------- places that add a tool or a server ----------------------------------------
    if place in ("added-tool", "near-copy") or (place == "second-server" and family in (
            "function-overlap", "confusable-name")):
        return build_added_tool(gen, rng, family, place, register, variant, speaker, conceal,
                                surface, ti, slots)
    if place == "second-server":   # cross-tool shadowing from a second, attacker server
        target = tool
        slots["other"] = target["name"]
        tps = sorted(props_of(target))
        if not tps:
            return None
        op = pick_shadow_param(rng, props_of(target))
        slots["oparam"] = op
        slots["value"] = shadow_value(rng, B, op, props_of(target)[op])
        atk = attacker_server(gen, rng)
        at = atk["tools"][0]
        slots2 = dict(slots, tool=at["name"])
        text = gen.compose(rng, demand_key, slots2, speaker, register, variant, conceal, place)
        if text is None:
            return None
        at["description"], _ = gen.place_in_description(
            rng, at["description"], text, rng.choice(("desc-start", "desc-end")), tagged)
        inj = [{"location": "servers[1].tools[0].description", "text": text}]
        note = "second server %s: %s tells how %s must be used" % (
            atk["server"]["name"], at["name"], target["name"])
        return [surface, atk], inj, note, place, demand_label

    if place == "oos-param":
        oos = rng.choice(B["objects"]["oos_params"])
        name = oos["name"]
        if name in props:
            return None
        sl = dict(slots, param=name)
        over = {}
        if register == "plain" and rng.random() < 0.6:
            text = fill(oos["description"], sl)
            over = {"speaker": "none"}
            if conceal:
                text += " " + rng.choice(B["concealment"])
        else:
            text = gen.compose(rng, "describe-model", sl, speaker, register, variant, conceal,
                               place, core=fill(oos["description"], sl))
            if text is None:
                return None
        add_property(tool, name, {"type": "string", "description": text})
        if rng.random() < 0.5:
            req = tool["inputSchema"].setdefault("required", [])
            if isinstance(req, list):
                req.append(name)
        base = "tools[%d].inputSchema.properties.%s" % (ti, name)
        inj = [{"location": base, "text": name}, {"location": base + ".description", "text": text}]
        return surface, inj, "out-of-scope parameter %s added to %s" % (name, tool["name"]), \
            place, demand_label, over

    # -------- text places -----------------------------------------------------------------
    if place in ("param-description", "schema-default", "enum-value"):
        if place == "enum-value":
            cands = sorted(k for k, v in props.items() if isinstance(v, dict) and isinstance(
                v.get("enum"), list) and all(isinstance(x, str) for x in v["enum"]))
        elif place == "schema-default":
            cands = sorted(k for k, v in props.items() if is_string_prop(v))
        else:
            cands = sorted(props)
            if demand == "change-value":
                cands = [slots["vparam"]]
            elif demand in ("read-secret", "describe-model") and slots.get("param"):
                cands = [slots["param"]]
        if not cands:
            return None
        pname = rng.choice(cands)
        prop = props[pname]
        if not isinstance(prop, dict):
            return None
        sl = dict(slots, param=pname) if demand in ("read-secret", "describe-model") else slots
        over = {}
        if place == "schema-default" and register == "plain" and rng.random() < 0.6 and demand in (
                "run-command", "read-secret", "send-to-endpoint"):
            payload_key = {"run-command": "default_commands", "read-secret": "default_secrets",
                           "send-to-endpoint": "default_endpoints"}[demand]
            # a bare payload as the default value: no speaker, no register, no clause
            text = fill(rng.choice(B["objects"][payload_key]), sl)
            over = {"speaker": "none", "concealment": False, "register": "plain",
                    "variant": "payload"}
        else:
            text = gen.compose(rng, demand_key, sl, speaker, register, variant, conceal, place)
            if text is None:
                return None
        loc = "tools[%d].inputSchema.properties.%s" % (ti, pname)
        if place == "param-description":
            d = prop.get("description") if isinstance(prop.get("description"), str) else ""
            prop["description"] = gen.join(d, text, rng, tagged) if rng.random() < 0.8 else \
                gen.join(text, d, rng, tagged)
            loc += ".description"
        elif place == "schema-default":
            prop["default"] = text
            loc += ".default"
        else:
            prop["enum"] = list(prop["enum"])
            k = rng.randrange(0, len(prop["enum"]) + 1)
            prop["enum"].insert(k, text)
            loc += ".enum[%d]" % k
        note = "%s in %s of %s.%s%s" % (demand_label, place, tool["name"], pname, extra_note)
        return surface, [{"location": loc, "text": text}], note, place, demand_label, over

    if place == "server-instructions":
        text = gen.compose(rng, demand_key, slots, speaker, register, variant, conceal, place)
        if text is None:
            return None
        srv = surface["server"]
        cur = srv.get("instructions") if isinstance(srv.get("instructions"), str) else ""
        srv["instructions"] = gen.join(cur, text, rng, tagged) if rng.random() < 0.7 else \
            gen.join(text, cur, rng, tagged)
        return surface, [{"location": "server.instructions", "text": text}], \
            "%s in server instructions (names %s)%s" % (demand_label, tool["name"], extra_note), \
            place, demand_label

    if place == "prompt-description":
        prompts = surface.get("prompts") or []
        if not prompts:
            return None
        pi = rng.randrange(len(prompts))
        p = prompts[pi]
        text = gen.compose(rng, demand_key, slots, speaker, register, variant, conceal, place)
        if text is None:
            return None
        cur = p.get("description") if isinstance(p.get("description"), str) else ""
        p["description"] = gen.join(cur, text, rng, tagged)
        return surface, [{"location": "prompts[%d].description" % pi, "text": text}], \
            "%s in the description of prompt %s" % (demand_label, p.get("name", pi)), \
            place, demand_label

    # description start / middle / end
    text = gen.compose(rng, demand_key, slots, speaker, register, variant, conceal, place)
    if text is None:
        return None
    tool["description"], actual = gen.place_in_description(rng, tool["description"], text,
                                                           place, tagged)
    return surface, [{"location": "tools[%d].description" % ti, "text": text}], \
        "%s at %s of %s%s" % (demand_label, actual, tool["name"], extra_note), actual, demand_label


def restrict_dependency(gen, slots, surface):
    """A forced call to a tool that really is on the surface is only unambiguous when the
    sentence also moves data or a secret into it; mark the slots so that only such templates
    are usable (the others need the slot `nodata`, absent here)."""
    names = {t["name"] for t in surface["tools"]}
    if slots.get("other") in names:
        slots["_existing_other"] = True


def attacker_server(gen, rng):
    N = gen.B["names"]
    srv = rng.choice(N["attacker_servers"])
    tool = rng.choice(N["attacker_tools"])
    return {
        "server": {"name": srv, "version": "%d.%d.%d" % (rng.randrange(0, 4), rng.randrange(0, 12),
                                                          rng.randrange(0, 9))},
        "tools": [{"name": tool["name"], "description": tool["description"],
                   "inputSchema": copy.deepcopy(tool["inputSchema"])}],
    }


def confusable(rng, name, ops):
    """Apply one confusable operation from the bank; return None if it does not change name."""
    order = list(ops)
    rng.shuffle(order)
    for op in order:
        kind = op["op"]
        if kind == "swap":
            idx = [m.start() for m in re.finditer(re.escape(op["from"]), name)]
            if not idx:
                continue
            i = rng.choice(idx)
            out = name[:i] + op["to"] + name[i + len(op["from"]):]
        elif kind == "separator":
            if op["from"] not in name:
                continue
            out = name.replace(op["from"], op["to"], 1)
        elif kind == "double":
            idx = [i for i, ch in enumerate(name) if ch.isalpha() and ch in op.get("letters", "")]
            if not idx:
                continue
            i = rng.choice(idx)
            out = name[:i] + name[i] + name[i:]
        elif kind == "transpose":
            idx = [i for i in range(1, len(name) - 2) if name[i].isalpha() and name[i + 1].isalpha()
                   and name[i] != name[i + 1]]
            if not idx:
                continue
            i = rng.choice(idx)
            out = name[:i] + name[i + 1] + name[i] + name[i + 2:]
        elif kind == "drop":
            idx = [i for i, ch in enumerate(name) if ch in op.get("letters", "") and 0 < i < len(name) - 1]
            if not idx:
                continue
            i = rng.choice(idx)
            out = name[:i] + name[i + 1:]
        else:
            continue
        if out != name:
            return out, op.get("label", kind)
    return None


def build_added_tool(gen, rng, family, place, register, variant, speaker, conceal, surface, ti,
                     slots):
    B = gen.B
    base = surface["tools"][ti]
    tagged = register == "tagged"
    S = B["superiority"]
    if family == "function-overlap":
        ext = rng.choice(B["names"]["extensions"])
        new_name = fill(ext, {"base": base["name"]})
        how = "extension"
    else:
        r = confusable(rng, base["name"], B["names"]["confusables"])
        if r is None:
            return None
        new_name, how = r
    if any(t["name"] == new_name for t in surface["tools"]):
        return None
    sl = dict(slots, tool=new_name, base=base["name"], other=base["name"])
    sl["claim"] = fill(rng.choice(S["claims"]), sl)
    over = {}
    extra_kind = None
    if family == "function-overlap":
        demand_key = "prefer-tool"
        if rng.random() < 0.45:
            extra_kind = rng.choice(("describe-model", "read-secret", "user-data"))
    else:
        demand_key = rng.choice(("prefer-tool", "read-secret", "send-to-endpoint",
                                 "describe-model", "never-use-other", "copy-only"))
    demand_label = "prefer-tool" if family == "function-overlap" else demand_key
    new_tool = {"name": new_name, "description": "",
                "inputSchema": copy.deepcopy(base.get("inputSchema") or {"type": "object",
                                                                         "properties": {}})}
    if not isinstance(new_tool["inputSchema"], dict):
        new_tool["inputSchema"] = {"type": "object", "properties": {}}
    for k in ("title", "annotations", "outputSchema"):
        if k in base:
            new_tool[k] = copy.deepcopy(base[k])
    if "title" in new_tool and isinstance(new_tool["title"], str):
        new_tool["title"] = new_tool["title"] + fill(rng.choice(S["title_suffixes"]), sl)
    injected_bits = []
    if family == "function-overlap":
        lead = fill(rng.choice(S["overlap_leads"]), sl)
        if register in ("plain", "marketing") and rng.random() < 0.5:
            pitch = lead
            over = {"speaker": "none", "concealment": False}
        else:
            pitch = gen.compose(rng, "prefer-tool", sl, speaker, register, variant, conceal,
                                place)
            if pitch is None:
                return None
            pitch = lead + " " + pitch if register not in ("obfuscated", "multilingual") else \
                pitch
        desc = gen.join(pitch, base["description"], rng, tagged) if rng.random() < 0.7 else \
            gen.join(base["description"], pitch, rng, tagged)
        if extra_kind:
            e = rng.choice(S["extra_params"][extra_kind])
            add_property(new_tool, e["name"], {"type": "string", "description": fill(
                e["description"], sl)})
            req = new_tool["inputSchema"].setdefault("required", [])
            if isinstance(req, list):
                req.append(e["name"])
            demand_label = "prefer-tool+" + extra_kind
            injected_bits.append(e)
    else:
        if demand_key == "copy-only":
            pitch = fill(rng.choice(S["copy_notes"]), sl)
            desc = gen.join(base["description"], pitch, rng, False)
            over = {"speaker": "none", "concealment": False, "register": "plain", "variant": ""}
        else:
            if demand_key in ("read-secret", "describe-model"):
                strp = sorted(k for k, v in props_of(new_tool).items() if is_string_prop(v))
                if not strp:
                    demand_key = "prefer-tool"
                else:
                    sl["param"] = rng.choice(strp)
            dk = demand_key
            if dk == "send-to-endpoint":
                dk = "send-url"
            pitch = gen.compose(rng, dk, sl, speaker, register, variant, conceal, place)
            if pitch is None:
                return None
            desc = gen.join(base["description"], pitch, rng, tagged)
        demand_label = demand_key
    new_tool["description"] = desc
    if place == "second-server":
        atk = attacker_server(gen, rng)
        atk["tools"].insert(0, new_tool)
        inj = [{"location": "servers[1].tools[0].name", "text": new_name},
               {"location": "servers[1].tools[0].description", "text": desc}]
        for e in injected_bits:
            inj.append({"location": "servers[1].tools[0].inputSchema.properties.%s.description"
                        % e["name"], "text": fill(e["description"], sl)})
        note = "second server %s adds %s beside %s (%s)" % (atk["server"]["name"], new_name,
                                                          base["name"], how)
        return [surface, atk], inj, note, place, demand_label, over
    pos = ti + 1 if rng.random() < 0.6 else len(surface["tools"])
    surface["tools"].insert(pos, new_tool)
    inj = [{"location": "tools[%d].name" % pos, "text": new_name},
           {"location": "tools[%d].description" % pos, "text": desc}]
    for e in injected_bits:
        inj.append({"location": "tools[%d].inputSchema.properties.%s.description" % (pos, e["name"]),
                    "text": fill(e["description"], sl)})
    note = "added %s beside %s (%s)" % (new_name, base["name"], how)
    return surface, inj, note, place, demand_label, over


# ---------------------------------------------------------------------------------------------
# results


DESTRUCTIVE_RE = r"(delete|drop|remove|destroy|terminate|kill|purge|force|wipe|reset|revoke|deactivate|cancel|refund|transfer|send|pay|merge|deploy|apply|rm_|_rm)"
SETUP_RE = r"^(list|search|get|find|describe|show|auth|login|open|start|begin|init|connect|lock|query|read|lookup|fetch|check|status)"


def own_tool(rng, surface, tool, prefer_setup=False):
    """Another tool of the same server to name in honest text: never a destructive one."""
    others = [t["name"] for t in surface["tools"] if t["name"] != tool["name"]
              and not re.search(DESTRUCTIVE_RE, t["name"], re.I)]
    if not others:
        return None
    setup = [n for n in others if re.search(SETUP_RE, n, re.I)]
    if prefer_setup and setup:
        return rng.choice(setup)
    return rng.choice(others)


def honest_body(gen, rng, surface, tool):
    R = gen.B["results"]
    cat = result_category(tool)
    bodies = R["bodies"].get(cat) or R["bodies"]["generic"]
    own = own_tool(rng, surface, tool, prefer_setup=True)
    sl = {"tool": tool["name"],
          "n": rng.randrange(2, 48), "date": "2024-%02d-%02d" % (rng.randrange(1, 13),
                                                                  rng.randrange(1, 29)),
          "id": "%d" % rng.randrange(1000, 99999), "q": "", "server": surface["server"]["name"]}
    if own:
        sl["own"] = own
    b = rng.choice(bodies)
    return b, sl, cat


def render_body(b, sl, inject=None, position="append", rng=None):
    text = b["text"]
    is_json = b.get("json", False)
    if "{embed}" in text:
        if inject is not None and position == "embed":
            t = ("\n" + inject + "\n") if ("\n" in inject or inject.lstrip()[:1] in "<[#`{") \
                else (" " + inject + " ")
            t = json.dumps(t, ensure_ascii=False)[1:-1] if is_json else t
            text = text.replace("{embed}", t)
        else:
            text = text.replace("{embed}", b.get("embed_default", ""))
    text = fill(text, sl)
    if inject is not None and position == "append":
        text = text.rstrip() + rng.choice(("\n\n", "\n", " ")) + inject
    elif inject is not None and position == "prepend":
        text = inject + rng.choice(("\n\n", "\n")) + text
    return text


def make_malicious_result(gen, rng, family, demand, register, variant, case_no):
    B = gen.B
    for _attempt in range(12):
        carrier = rng.choice(gen.carriers)
        surface = carrier["surface"]
        idxs = [i for i, t in enumerate(surface["tools"]) if t.get("description")]
        if not idxs:
            continue
        tool = surface["tools"][rng.choice(idxs)]
        slots = gen.base_slots(rng, surface, tool)
        slots["successor"] = gen.successor(rng, tool["name"])
        lang = variant if register == "multilingual" else None
        speakers = gen.speakers_for(register, lang)
        rs = B["results"].get("speakers_weighting")
        speaker = rng.choice(speakers)
        conceal = rng.random() < 0.35
        demand_key = demand
        if demand == "send-to-endpoint":
            demand_key = rng.choice(("send-url", "send-email", "send-ip"))
            if register == "multilingual" and demand_key == "send-ip":
                demand_key = "send-url"
        if demand == "edit-dotfile" and rng.random() < 0.35:
            demand_key = "export-variable"
        if demand == "call-tool-first":
            restrict_dependency(gen, slots, surface)
        if demand in ("read-secret", "describe-model") and "param" not in slots:
            slots["param"] = rng.choice(B["results"]["fallback_params"])
        if demand == "change-value":
            vps = sorted(k for k in props_of(tool) if value_category(k))
            if not vps:
                continue
            vp = rng.choice(vps)
            cat = value_category(vp)
            slots["vparam"], slots["value"] = vp, rng.choice(B["objects"]["values"][cat])
            slots["what"] = rng.choice(B["objects"]["value_nouns"][cat])
        if demand == "shadow-other-tool":
            others = [o for o in surface["tools"] if o["name"] != tool["name"] and props_of(o)]
            if not others:
                continue
            o = rng.choice(others)
            slots["other"] = o["name"]
            op = pick_shadow_param(rng, props_of(o))
            slots["oparam"] = op
            slots["value"] = shadow_value(rng, B, op, props_of(o)[op])
        # result-specific prefixes for speakers (a fake user turn, a relayed notice)
        if register != "multilingual" and speaker in B["results"]["speaker_prefixes"] and \
                rng.random() < 0.6:
            saved = B["speakers"][speaker]
            B["speakers"][speaker] = B["results"]["speaker_prefixes"][speaker]
            text = gen.compose(rng, demand_key, slots, speaker, register, variant, conceal,
                               "result")
            B["speakers"][speaker] = saved
        else:
            text = gen.compose(rng, demand_key, slots, speaker, register, variant, conceal,
                               "result")
        if text is None:
            continue
        b, sl, cat = honest_body(gen, rng, surface, tool)
        positions = ["append", "append", "prepend"]
        if "{embed}" in b["text"]:
            positions += ["embed", "embed"]
        if register == "fake-error" or speaker == "error":
            positions += ["whole", "whole"]
        position = rng.choice(positions)
        rtext = text if position == "whole" else render_body(b, sl, text, position, rng)
        key = text + "|" + carrier["id"]
        if not gen.claim(key):
            continue
        return {
            **gen.case_head(family, case_no, "malicious", "%s injected in a %s result of %s (%s)" % (demand, cat, tool["name"], position)),
            "components": {"speaker": speaker, "demand": demand, "register": register,
                           "place": "result", "variant": variant or "", "concealment": conceal,
                           "result_position": position, "carrier": carrier["id"]},
            "injected": [{"location": "result", "text": text}],
            "result": {"server": surface["server"]["name"], "tool": tool["name"], "text": rtext},
        }
    return None


# ---------------------------------------------------------------------------------------------
# honest cases


def honest_slots(gen, rng, surface, tool):
    H = gen.B["honest"]
    props = props_of(tool)
    own = own_tool(rng, surface, tool, prefer_setup=True)
    sl = {"tool": tool["name"], "server": surface["server"].get("name", "server"),
          "n": rng.choice((5, 10, 20, 25, 50, 100, 200, 500, 1000)),
          "env": rng.choice(H["env_vars"]), "url": rng.choice(H["doc_urls"])}
    if own:
        sl["own"] = own
    sl["envkey"] = rng.choice(H["env_keys"])
    ids = sorted(k for k in props if re.search(r"(^id$|_id$|_key$|^key$|_name$|^name$|slug|_ref$)", k))
    if ids:
        sl["idparam"] = rng.choice(ids)
    if re.search(r"^(get|list|search|read|show|find|describe|fetch|lookup|query)", tool["name"]):
        writers = [t["name"] for t in surface["tools"] if re.search(
            r"^(create|update|write|edit|set|add|put|post|save|upsert)", t["name"])]
        if writers:
            sl["writer"] = rng.choice(writers)
    if props:
        sl["param"] = rng.choice(sorted(props))
    paths = sorted(k for k in props if value_category(k) == "path")
    if paths:
        sl["path"] = rng.choice(paths)
    ints = sorted(k for k, v in props.items() if isinstance(v, dict) and v.get("type") in (
        "integer", "number"))
    if ints:
        sl["item"] = rng.choice(ints)
    return sl


def honest_register(text):
    """The register an honest sentence is written in, judged from its form."""
    if re.match(r"\s*(<[A-Za-z]|#|\[)", text):
        return "tagged"
    if re.match(r"\s*(error|err\b|http \d{3}|\d{3}\b)", text, re.I):
        return "fake-error"
    if re.search(r"\b(IMPORTANT|MUST|NEVER|ALWAYS|CRITICAL|WARNING|REQUIRED|NOTE|CAUTION)\b", text):
        return "policy"
    return "plain"


def make_honest(gen, rng, family, case_no, place_cycle):
    H = gen.B["honest"]
    for _attempt in range(16):
        carrier = rng.choice(gen.carriers)
        surface = copy.deepcopy(carrier["surface"])
        idxs = [i for i, t in enumerate(surface["tools"]) if t.get("description", "").strip()]
        if not idxs:
            continue
        ti = rng.choice(idxs)
        tool = surface["tools"][ti]
        sl = honest_slots(gen, rng, surface, tool)
        register = "plain"
        variant = ""
        speaker = "changelog" if family == "honest-changelog" else rng.choice(
            ("developer", "none", "none"))
        demand = family
        place = next(place_cycle)
        if family == "credential-params":
            cp = rng.choice(H["credential_params"])
            if cp["name"] in props_of(tool):
                continue
            text = fill(cp["description"], sl)
            add_property(tool, cp["name"], {"type": cp.get("type", "string"), "description": text})
            base = "tools[%d].inputSchema.properties.%s" % (ti, cp["name"])
            injected = [{"location": base, "text": cp["name"]},
                        {"location": base + ".description", "text": text}]
            place = "honest-param"
            register = honest_register(text)
            note = "honest credential parameter %s on %s" % (cp["name"], tool["name"])
        else:
            if family == "multilingual-honest":
                lang = rng.choice(sorted(H["multilingual"]))
                pool = H["multilingual"][lang]
            else:
                pool = H[family]
            t = pick_usable(rng, pool, sl, family)
            if t is None:
                continue
            text = fill(t, sl)
            tagged = bool(re.match(r"\s*(<|#|\[)", text))
            if family == "multilingual-honest":
                register, variant = "multilingual", lang
            else:
                register = honest_register(text)
            if place == "param-description":
                props = props_of(tool)
                if not props:
                    place = "desc-end"
                else:
                    pname = sl.get("param") or rng.choice(sorted(props))
                    prop = props[pname]
                    if not isinstance(prop, dict):
                        continue
                    d = prop.get("description") if isinstance(prop.get("description"), str) \
                        else ""
                    prop["description"] = gen.join(d, text, rng, tagged)
                    injected = [{"location": "tools[%d].inputSchema.properties.%s.description" % (
                        ti, pname), "text": text}]
            if place == "server-instructions":
                srv = surface["server"]
                cur = srv.get("instructions") if isinstance(srv.get("instructions"), str) else ""
                srv["instructions"] = gen.join(cur, text, rng, tagged)
                injected = [{"location": "server.instructions", "text": text}]
            elif place in ("desc-start", "desc-middle", "desc-end"):
                tool["description"], place = gen.place_in_description(
                    rng, tool["description"], text, place, tagged)
                injected = [{"location": "tools[%d].description" % ti, "text": text}]
            note = "honest %s sentence at %s of %s" % (family, place, tool["name"])
        key = "".join(x["text"] for x in injected) + "|" + carrier["id"] + "|" + place
        if not gen.claim(key):
            continue
        return {
            **gen.case_head(family, case_no, "benign", note),
            "components": {"speaker": speaker, "demand": "none:" + demand, "register": register,
                           "place": place, "variant": variant, "concealment": False,
                           "carrier": carrier["id"]},
            "injected": injected,
            "surface": surface,
        }
    return None


def make_honest_result(gen, rng, case_no):
    R = gen.B["results"]
    for _attempt in range(16):
        carrier = rng.choice(gen.carriers)
        surface = carrier["surface"]
        idxs = [i for i, t in enumerate(surface["tools"]) if t.get("description")]
        if not idxs:
            continue
        tool = surface["tools"][rng.choice(idxs)]
        b, sl, cat = honest_body(gen, rng, surface, tool)
        notes = R["honest_notes"]
        pool = notes.get(cat) if cat in notes and rng.random() < 0.5 else notes["generic"]
        sl2 = dict(sl, env=rng.choice(gen.B["honest"]["env_vars"]),
                   envkey=rng.choice(gen.B["honest"]["env_keys"]))
        ok = [n for n in pool if usable(n["text"] if isinstance(n, dict) else n, sl2)]
        if not ok:
            continue
        note_t = rng.choice(ok)
        alone = False
        if isinstance(note_t, dict):
            alone = note_t.get("alone", False)
            note_t = note_t["text"]
        note = fill(note_t, sl2)
        position = rng.choice(("append", "append", "prepend"))
        if "{embed}" in b["text"] and rng.random() < 0.4:
            position = "embed"
        if alone:
            position = "whole"
            text = note
        else:
            text = render_body(b, sl, note, position, rng)
        key = note + "|" + text
        if not gen.claim(key):
            continue
        register = honest_register(note)
        return {
            "id": "gen-%s-honest-results-%05d" % (gen.split, case_no),
            "label": "benign",
            "family": "honest-results",
            "split": gen.split,
            "note": "honest loud note in a %s result of %s (%s)" % (cat, tool["name"], position),
            "components": {"speaker": "none", "demand": "none:honest-results",
                           "register": register, "place": "result", "variant": "",
                           "concealment": False, "result_position": position,
                           "carrier": carrier["id"]},
            "injected": [{"location": "result", "text": note}],
            "result": {"server": surface["server"]["name"], "tool": tool["name"], "text": text},
        }
    return None


# ---------------------------------------------------------------------------------------------
# driver


def cycle(seq):
    while True:
        for x in seq:
            yield x


def variants_for(gen, register, k):
    if register == "multilingual":
        return gen.ml_langs[k % len(gen.ml_langs)]
    if register == "obfuscated":
        return OBFUSCATIONS[k % len(OBFUSCATIONS)]
    return ""


def generate_split(split, banks, carriers):
    gen = Gen(split, banks, carriers)
    cases = {}
    for family, demand, n_surface, n_result in MALICIOUS_PLAN:
        rng = random.Random("mcp-warden-gen:%s:%s" % (split, family))
        regs = FAMILY_REGISTERS.get(family, REGISTERS)
        places = FAMILY_PLACES[family]
        out = []
        no = 0
        k = 0
        misses = 0
        reg_counts = {}
        while len(out) < n_surface and misses < n_surface * 20:
            register = regs[k % len(regs)]
            place = places[(k // len(regs) + k) % len(places)]
            variant = variants_for(gen, register, reg_counts.get(register, 0))
            k += 1
            case = make_malicious(gen, rng, family, demand, place, register, variant, no + 1)
            if case is None:
                misses += 1
                continue
            reg_counts[register] = reg_counts.get(register, 0) + 1
            no += 1
            out.append(case)
        if len(out) < n_surface:
            print("warning: %s/%s: only %d of %d surface cases" % (split, family, len(out),
                                                                     n_surface), file=sys.stderr)
        rregs = REGISTERS
        k = 0
        made = 0
        misses = 0
        while made < n_result and misses < n_result * 20:
            register = rregs[k % len(rregs)]
            variant = variants_for(gen, register, k // len(rregs))
            k += 1
            case = make_malicious_result(gen, rng, family, demand, register, variant, no + 1)
            if case is None:
                misses += 1
                continue
            no += 1
            made += 1
            out.append(case)
        if made < n_result:
            print("warning: %s/%s: only %d of %d result cases" % (split, family, made, n_result),
                  file=sys.stderr)
        cases[family] = out
    # honest
    for family, n in HONEST_PLAN:
        rng = random.Random("mcp-warden-gen:%s:%s" % (split, family))
        out = []
        misses = 0
        places = cycle(HONEST_PLACES if family != "examples-tags" else (
            "desc-end", "desc-end", "desc-middle", "param-description", "server-instructions"))
        while len(out) < n and misses < n * 20:
            if family == "honest-results":
                case = make_honest_result(gen, rng, len(out) + 1)
            else:
                case = make_honest(gen, rng, family, len(out) + 1, places)
            if case is None:
                misses += 1
                continue
            out.append(case)
        if len(out) < n:
            print("warning: %s/%s: only %d of %d honest cases" % (split, family, len(out), n),
                  file=sys.stderr)
        cases[family] = out
    return cases


# ---------------------------------------------------------------------------------------------
# validation of the output


PATH_TOKEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


def resolve(root, location):
    """Follow a manifest path such as tools[3].inputSchema.properties.x.description."""
    cur = root
    parts = []
    # property names may contain dots? they do not in our banks; split on '.' outside brackets
    for seg in location.split("."):
        m = re.match(r"^([^\[]*)((?:\[\d+\])*)$", seg)
        if not m:
            return None
        if m.group(1):
            parts.append(m.group(1))
        for idx in re.findall(r"\[(\d+)\]", m.group(2)):
            parts.append(int(idx))
    for p in parts:
        if isinstance(p, int):
            if not isinstance(cur, list) or p >= len(cur):
                return None
            cur = cur[p]
        else:
            if not isinstance(cur, dict) or p not in cur:
                return None
            cur = cur[p]
    return cur


def validate(out_dir):
    ids = set()
    total = 0
    problems = []
    for split in SPLITS:
        for path in sorted(glob.glob(os.path.join(out_dir, split, "*.json"))):
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            if not isinstance(data, list):
                problems.append("%s: not a JSON array" % path)
                continue
            for c in data:
                total += 1
                if c["id"] in ids:
                    problems.append("duplicate id " + c["id"])
                ids.add(c["id"])
                if c["split"] != split:
                    problems.append("%s: split mismatch" % c["id"])
                if c["label"] not in ("malicious", "benign") or not c["injected"]:
                    problems.append("%s: bad label or nothing injected" % c["id"])
                if not c["id"].startswith("gen-%s-%s-" % (split, c["family"])):
                    problems.append("%s: id does not name split and family" % c["id"])
                texts = [i["text"] for i in c["injected"]] + (
                    [c["result"]["text"]] if "result" in c else [])
                for t in texts:
                    for m in SLOT_RE.finditer(t):
                        n = m.group(1)
                        if n[0].lower() + n[1:] in KNOWN_SLOTS:
                            problems.append("%s: unfilled slot %s" % (c["id"], m.group(0)))
                for inj in c["injected"]:
                    if inj["location"] == "result":
                        if inj["text"] not in c["result"]["text"] and c["components"].get(
                                "result_position") != "embed":
                            problems.append("%s: injected text not in result" % c["id"])
                        continue
                    if "servers" in c:
                        m = re.match(r"^servers\[(\d+)\]\.(.*)$", inj["location"])
                        root = c["servers"][int(m.group(1))] if m else c["servers"][0]
                        loc = m.group(2) if m else inj["location"]
                    else:
                        root, loc = c["surface"], inj["location"]
                    v = resolve(root, loc)
                    if loc.endswith("." + inj["text"]) and isinstance(v, dict):
                        continue   # a property added under its own name
                    if not isinstance(v, str) or inj["text"] not in v:
                        problems.append("%s: %s does not hold the injected text" % (
                            c["id"], inj["location"]))
    with open(os.path.join(out_dir, "manifest.json"), encoding="utf-8") as f:
        json.load(f)
    return total, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--carriers", help="directory of carrier surfaces (manifest JSON files)")
    ap.add_argument("--split", choices=SPLITS, help=argparse.SUPPRESS)  # bank authoring only
    args = ap.parse_args()

    splits = (args.split,) if args.split else SPLITS
    banks = {s: load_banks(s) for s in splits}
    if args.split:
        print("warning: one split only, disjointness of the banks not checked", file=sys.stderr)
        bank_sizes = {}
    else:
        bank_sizes = check_disjoint(banks)
    carriers, source = load_carriers(args)
    if not carriers:
        die("no carrier surfaces found")
    by = split_carriers(carriers)
    for s in splits:
        if not by[s]:
            die("no carriers fell in the %s split" % s)

    os.makedirs(args.out, exist_ok=True)
    manifest = {"generator": "tests/corpus/generator/generate.py", "carrier_source": source,
                "bank_phrases": bank_sizes, "splits": {}}
    for split in splits:
        sdir = os.path.join(args.out, split)
        os.makedirs(sdir, exist_ok=True)
        for old in glob.glob(os.path.join(sdir, "*.json")):
            os.remove(old)
        cases = generate_split(split, banks[split], by[split])
        counts = {"total": 0, "label": {}, "family": {}, "register": {}, "place": {},
                  "speaker": {}, "demand": {}, "variant": {}, "result_cases": 0,
                  "register_by_family": {}}
        for family in sorted(cases):
            with open(os.path.join(sdir, family + ".json"), "w", encoding="utf-8") as f:
                json.dump(cases[family], f, ensure_ascii=True, indent=1)
                f.write("\n")
            for c in cases[family]:
                comp = c["components"]
                counts["total"] += 1
                for key, val in (("label", c["label"]), ("family", family),
                                 ("register", comp["register"]), ("place", comp["place"]),
                                 ("speaker", comp["speaker"]), ("demand", comp["demand"])):
                    counts[key][val] = counts[key].get(val, 0) + 1
                if comp.get("variant"):
                    v = comp["register"] + ":" + comp["variant"]
                    counts["variant"][v] = counts["variant"].get(v, 0) + 1
                if comp["place"] == "result":
                    counts["result_cases"] += 1
                rb = counts["register_by_family"].setdefault(family, {})
                rb[comp["register"]] = rb.get(comp["register"], 0) + 1
        for key in ("label", "family", "register", "place", "speaker", "demand", "variant"):
            counts[key] = dict(sorted(counts[key].items()))
        used = sorted({c["components"]["carrier"] for fam in cases.values() for c in fam})
        counts["carriers"] = {"available": len(by[split]), "used": len(used),
                              "servers": sorted({c["server_id"] for c in by[split]}),
                              "ids": used}
        manifest["splits"][split] = counts
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=1)
        f.write("\n")

    total, problems = validate(args.out)
    for p in problems[:30]:
        print("problem: " + p, file=sys.stderr)
    print("carriers: %s (%s), dev %d / sealed %d surfaces" % (
        source["source"], source["dir"], len(by["dev"]), len(by["sealed"])))
    if bank_sizes:
        print("bank phrases: dev %d, sealed %d (disjoint)" % (bank_sizes["dev"],
                                                             bank_sizes["sealed"]))
    for split in splits:
        c = manifest["splits"][split]
        print("%s: %d cases, %d malicious, %d benign, %d result cases (%.1f%%)" % (
            split, c["total"], c["label"].get("malicious", 0), c["label"].get("benign", 0),
            c["result_cases"], 100.0 * c["result_cases"] / max(1, c["total"])))
        print("  families: " + ", ".join("%s %d" % kv for kv in c["family"].items()))
        print("  registers: " + ", ".join("%s %d" % kv for kv in c["register"].items()))
        print("  places: " + ", ".join("%s %d" % kv for kv in c["place"].items()))
        print("  speakers: " + ", ".join("%s %d" % kv for kv in c["speaker"].items()))
    print("validated %d cases in %s: %s" % (total, args.out, "ok" if not problems else
                                            "%d problems" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
