//! No import circles: within each crate, the modules' references to one another (`use
//! crate::...`, `crate::a::b` paths in code, `super::x`) form no cycle. A module may use its
//! ancestors (they contain it); test modules (`#[cfg(test)] mod tests` at a file's end, and
//! `tests.rs` files) are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const CRATES: &[&str] = &[
    "src",
    "crates/lectern-core/src",
    "crates/lectern-store-sql/src",
    "crates/lectern-store-sqlite/src",
    "crates/lectern-store-postgres/src",
    "crates/lectern-pptx/src",
    "crates/lectern-bench/src",
];

type Graph = BTreeMap<String, BTreeSet<String>>;

#[test]
fn no_crate_has_an_import_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut circles = Vec::new();
    for dir in CRATES {
        let graph = module_graph(&root.join(dir));
        assert!(!graph.is_empty(), "{dir}: no modules found");
        for circle in strongly_connected(&graph) {
            circles.push(format!("{dir}: {}", describe(&graph, &circle)));
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
    // The references are really read: the router uses the REST operations, the web
    // handlers and the state.
    let app = module_graph(&root.join("src"));
    for used in ["api", "api::openapi", "state", "web::viewer", "mcp::http"] {
        assert!(
            app["router"].contains(used),
            "router -> {used}: {:?}",
            app["router"]
        );
    }
}

#[test]
fn a_circle_is_found() {
    let graph: Graph = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(m, to)| (m.into(), to.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(strongly_connected(&graph), vec![vec!["a", "b", "c"]]);
    let sources = "use crate::{a::{b, c::D}, e};\nfn f() { crate::x::y(); super::z::w(); }\n";
    let known: BTreeSet<String> = ["a", "a::b", "a::c", "e", "x", "m::z"]
        .map(String::from)
        .into();
    let refs = references("m::n", sources, &known);
    let want: BTreeSet<String> = ["a", "a::b", "a::c", "e", "x", "m::z"]
        .map(String::from)
        .into();
    assert_eq!(refs, want);
}

/// Every module of the crate whose sources are in `src` (one per file; `mod.rs`, `lib.rs`
/// and `main.rs` name their folder), with the modules it refers to.
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    walk(src, &mut files);
    let mut modules = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap().with_extension("");
        let mut parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            parts.pop();
        }
        if parts.last().is_some_and(|p| p == "tests") {
            continue;
        }
        modules.insert(parts.join("::"), file);
    }
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    modules
        .iter()
        .map(|(module, file)| {
            let text = std::fs::read_to_string(file).unwrap();
            let text = text
                .split("#[cfg(test)]\nmod tests")
                .next()
                .unwrap_or_default();
            (module.clone(), references(module, text, &known))
        })
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The modules of `known` that `text` (module `module`'s code) refers to, itself and its
/// ancestors aside.
fn references(module: &str, text: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
    let mut paths = Vec::new();
    for (prefix, base) in [("crate::", String::new()), ("super::", parent.to_string())] {
        let mut rest = text;
        while let Some(at) = rest.find(prefix) {
            let preceded = rest[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            rest = &rest[at + prefix.len()..];
            if !preceded {
                let joined = |p: String| {
                    if base.is_empty() {
                        p
                    } else {
                        format!("{base}::{p}")
                    }
                };
                paths.extend(expand(rest).into_iter().map(joined));
            }
        }
    }
    // Modules imported by name (`use crate::{api, web}`) and used through it (`api::decks::x`).
    let imported: BTreeMap<String, String> = paths
        .iter()
        .filter(|p| known.contains(*p))
        .filter_map(|p| Some((p.rsplit("::").next()?.to_string(), p.clone())))
        .collect();
    for (alias, module) in &imported {
        let prefix = format!("{alias}::");
        let mut rest = text;
        while let Some(at) = rest.find(&prefix) {
            let preceded = rest[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
            rest = &rest[at + prefix.len()..];
            if !preceded {
                paths.extend(expand(rest).into_iter().map(|p| format!("{module}::{p}")));
            }
        }
    }
    paths
        .iter()
        .filter_map(|p| deepest_module(p, known))
        .filter(|m| !m.is_empty() && m != module && !module.starts_with(&format!("{m}::")))
        .collect()
}

/// The paths a reference starting at `text` names: `a::b::c`, or for `a::{b, c::d}` each of
/// `a::b` and `a::c::d` (and `a` itself).
fn expand(text: &str) -> Vec<String> {
    let path: String = text
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    let path = path.trim_end_matches(':').to_string();
    let after = &text[path.len()..];
    let group = after
        .strip_prefix("::{")
        .or_else(|| (path.is_empty() && text.starts_with('{')).then(|| &text[1..]));
    let Some(group) = group else {
        return vec![path];
    };
    let mut depth = 0;
    let mut items = Vec::new();
    let mut start = 0;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    let mut out = vec![path.clone()];
    for item in items {
        for inner in expand(item.trim()) {
            if inner.is_empty() || inner == "self" {
                continue;
            }
            out.push(if path.is_empty() {
                inner
            } else {
                format!("{path}::{inner}")
            });
        }
    }
    out
}

/// The longest prefix of `path` that is a module.
fn deepest_module(path: &str, known: &BTreeSet<String>) -> Option<String> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len())
        .rev()
        .map(|n| parts[..n].join("::"))
        .find(|m| known.contains(m))
}

/// The groups of two or more modules that reach one another (Tarjan's algorithm).
fn strongly_connected(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let at = s.stack.iter().rposition(|m| *m == v).unwrap();
            let group: Vec<String> = s.stack.drain(at..).map(String::from).collect();
            if group.len() > 1 {
                let mut group = group;
                group.sort();
                s.found.push(group);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found
}

/// A circle's modules and, for each, which of the others it uses.
fn describe(graph: &Graph, circle: &[String]) -> String {
    circle
        .iter()
        .map(|m| {
            let to: Vec<&str> = graph[m]
                .iter()
                .filter(|t| circle.contains(t))
                .map(String::as_str)
                .collect();
            format!("{m} -> {}", to.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}
