//! How deep markup nests, estimated before html5ever reads it. The HTML tree builder checks
//! "is there a `<p>` in button scope" and the like by walking its stack of open elements,
//! so its cost grows with elements × depth: half a megabyte of nested `<div>`s took seconds.
//! This scan is linear: it follows tags with a stack of the elements that only an end tag
//! closes, and stops as soon as that stack is deeper than asked. Elements whose end tag is
//! optional (`p`, `li`, `td`, ...) are not counted, since the parser closes them itself; a
//! chain of them nests only through counted elements, so the true depth is at most about
//! twice the count. The exact depth is checked on the parsed tree afterwards.

use std::collections::HashMap;

/// Elements with no content.
const VOID: &[&str] = &[
    "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img", "input",
    "keygen", "link", "meta", "param", "source", "track", "wbr", "image",
];

/// Elements the parser closes without an end tag.
const OPTIONAL_END: &[&str] = &[
    "p", "li", "dt", "dd", "option", "optgroup", "rb", "rt", "rtc", "rp", "tr", "td", "th",
    "thead", "tbody", "tfoot", "colgroup", "caption", "html", "head", "body",
];

/// Elements whose content is text up to their own end tag (outside SVG and MathML).
const RAW_TEXT: &[&str] = &[
    "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript",
];

/// Whether `input` nests more than `limit` elements deep (of those only an end tag closes).
pub fn nests_deeper_than(input: &str, limit: usize) -> bool {
    let bytes = input.as_bytes();
    let mut stack: Vec<String> = Vec::new();
    let mut open: HashMap<String, usize> = HashMap::new();
    let mut i = 0;
    while let Some(offset) = memchr(b'<', &bytes[i..]) {
        i += offset + 1;
        let rest = &bytes[i..];
        if rest.starts_with(b"!--") {
            i += 3;
            i = comment_end(bytes, i);
            continue;
        }
        if rest.first().is_some_and(|&b| b == b'!' || b == b'?') {
            // Doctypes, CDATA (a bogus comment in HTML content) and processing
            // instructions end at the first `>`.
            i = memchr(b'>', &bytes[i..]).map_or(bytes.len(), |o| i + o + 1);
            continue;
        }
        let closing = rest.first() == Some(&b'/');
        let name_start = i + usize::from(closing);
        if !bytes.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let name_end = bytes[name_start..]
            .iter()
            .position(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>')
            .map_or(bytes.len(), |o| name_start + o);
        let name = input[name_start..name_end].to_ascii_lowercase();
        let (end, self_closing) = tag_end(bytes, name_end);
        i = end;
        if closing {
            if open.get(&name).is_some_and(|&n| n > 0) {
                while let Some(top) = stack.pop() {
                    let n = open.get_mut(&top).expect("every stacked name is counted");
                    *n -= 1;
                    if top == name {
                        break;
                    }
                }
            }
            continue;
        }
        if name == "plaintext" {
            return false;
        }
        let foreign =
            open.get("svg").is_some_and(|&n| n > 0) || open.get("math").is_some_and(|&n| n > 0);
        if RAW_TEXT.contains(&name.as_str()) && !foreign && !self_closing {
            i = raw_text_end(input, i, &name);
            continue;
        }
        if self_closing && foreign
            || VOID.contains(&name.as_str())
            || OPTIONAL_END.contains(&name.as_str())
        {
            continue;
        }
        *open.entry(name.clone()).or_default() += 1;
        stack.push(name);
        if stack.len() > limit {
            return true;
        }
    }
    false
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

/// Where a comment that starts at `i` (after `<!--`) ends: after `-->` or `--!>`, or at once
/// for `<!-->` and `<!--->`.
fn comment_end(bytes: &[u8], i: usize) -> usize {
    let rest = &bytes[i..];
    if rest.starts_with(b">") {
        return i + 1;
    }
    if rest.starts_with(b"->") {
        return i + 2;
    }
    let mut j = i;
    while let Some(o) = memchr(b'-', &bytes[j..]) {
        j += o;
        if bytes[j..].starts_with(b"-->") {
            return j + 3;
        }
        if bytes[j..].starts_with(b"--!>") {
            return j + 4;
        }
        j += 1;
    }
    bytes.len()
}

/// Where a start or end tag whose name ends at `i` ends (after its `>`), and whether it
/// closed itself (`/>`); attribute values in quotes may hold `>`.
fn tag_end(bytes: &[u8], mut i: usize) -> (usize, bool) {
    let mut after_equals = false;
    while i < bytes.len() {
        match bytes[i] {
            b'>' => return (i + 1, i > 0 && bytes[i - 1] == b'/'),
            b'=' => after_equals = true,
            q @ (b'"' | b'\'') if after_equals => {
                i = memchr(q, &bytes[i + 1..]).map_or(bytes.len(), |o| i + 1 + o);
                after_equals = false;
            }
            b if b.is_ascii_whitespace() => {}
            _ => after_equals = false,
        }
        i += 1;
    }
    (bytes.len(), false)
}

/// Where the raw text of `name` that starts at `i` ends: after its end tag.
fn raw_text_end(input: &str, i: usize, name: &str) -> usize {
    let bytes = input.as_bytes();
    let mut j = i;
    while let Some(o) = memchr(b'<', &bytes[j..]) {
        j += o + 1;
        let candidate = &bytes[j..];
        if candidate.first() == Some(&b'/')
            && candidate.len() > name.len()
            && candidate[1..=name.len()].eq_ignore_ascii_case(name.as_bytes())
            && candidate
                .get(name.len() + 1)
                .is_none_or(|b| b.is_ascii_whitespace() || *b == b'/' || *b == b'>')
        {
            return tag_end(bytes, j + 1 + name.len()).0;
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(tag: &str, n: usize) -> String {
        format!(
            "{}x{}",
            format!("<{tag}>").repeat(n),
            format!("</{tag}>").repeat(n)
        )
    }

    #[test]
    fn counts_elements_that_only_an_end_tag_closes() {
        assert!(!nests_deeper_than(&nested("div", 10), 10));
        assert!(nests_deeper_than(&nested("div", 11), 10));
        assert!(nests_deeper_than(&"<div>".repeat(11), 10));
        // Siblings do not nest.
        assert!(!nests_deeper_than(&"<div>a</div>".repeat(1000), 1));
        assert!(!nests_deeper_than(
            &"<br><img src=x><p>a<li>b".repeat(1000),
            1
        ));
    }

    #[test]
    fn end_tags_close_what_they_name_and_stray_ones_change_nothing() {
        assert!(!nests_deeper_than(&"<b><i>x</b>".repeat(100), 2));
        assert!(nests_deeper_than(&"<div></span>".repeat(100), 50));
        assert!(!nests_deeper_than("<DIV><Div></dIV></div>", 2));
    }

    #[test]
    fn comments_raw_text_and_attributes_hide_no_tags_the_parser_would_see() {
        let deep = "<div>".repeat(20);
        // Inside comments, raw text and quoted values, tags are text.
        assert!(!nests_deeper_than(&format!("<!--{deep}-->"), 5));
        assert!(!nests_deeper_than(&format!("<script>{deep}</script>"), 5));
        assert!(!nests_deeper_than(&format!("<a title=\"{deep}\">x</a>"), 5));
        // Where the parser ends them early, the scan does too.
        assert!(nests_deeper_than(&format!("<!-->{deep}-->"), 5));
        assert!(nests_deeper_than(&format!("<!--->{deep}-->"), 5));
        assert!(nests_deeper_than(&format!("<!-- --!>{deep}-->"), 5));
        assert!(nests_deeper_than(&format!("<![CDATA[>{deep}]]>"), 5));
        assert!(nests_deeper_than(&format!("<script>x</script >{deep}"), 5));
        assert!(nests_deeper_than(&format!("<a title=x\"{deep}\">x</a>"), 5));
        // In SVG, <title> and <style> hold elements.
        assert!(nests_deeper_than(
            &format!("<svg><title>{deep}</title></svg>"),
            5
        ));
    }
}
