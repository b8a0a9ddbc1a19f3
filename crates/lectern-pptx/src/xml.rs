//! XML text and attribute escaping for the parts the writer builds as strings: markup
//! characters become entities and characters XML 1.0 forbids are dropped.

/// Whether XML 1.0 allows `c` in a document (its `Char` production). Rust's `char` has no
/// surrogates, so what is left are the C0 controls other than tab, LF and CR, and the two
/// non-characters U+FFFE and U+FFFF.
pub(crate) fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Appends `text` escaped for element content or an attribute value (quoted with `"`):
/// `& < > " '` become entities, tab/LF/CR in attributes character references (so a parser
/// does not normalise them to spaces), and forbidden characters are dropped.
pub(crate) fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' => out.push_str("&#9;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c if is_xml_char(c) => out.push(c),
            _ => {}
        }
    }
}

/// `text` escaped as by [`push_escaped`].
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_escaped(&mut out, text);
    out
}

/// A URL made safe as a relationship target: characters that may not appear in a URI
/// (spaces, controls, non-ASCII, `"<>\^`{|}`) percent-encoded as UTF-8; existing `%`
/// escapes kept. PowerPoint asks to repair a file whose external target is not a URI.
pub(crate) fn uri_target(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.trim().chars() {
        let keep = c.is_ascii_graphic()
            && !matches!(c, '"' | '<' | '>' | '\\' | '^' | '`' | '{' | '|' | '}');
        if keep {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_become_entities() {
        assert_eq!(
            escape(r#"a<b & c>"d" 'e'"#),
            "a&lt;b &amp; c&gt;&quot;d&quot; &apos;e&apos;"
        );
    }

    #[test]
    fn forbidden_characters_are_dropped() {
        assert_eq!(escape("a\u{0}b\u{1}c\u{8}d\u{B}e\u{C}f\u{1F}g"), "abcdefg");
        assert_eq!(escape("x\u{FFFE}\u{FFFF}y"), "xy");
        assert_eq!(escape("tab\tnl\ncr\r"), "tab&#9;nl&#10;cr&#13;");
        assert_eq!(escape("é 😀 \u{E000}"), "é 😀 \u{E000}");
    }

    #[test]
    fn escaped_text_parses_back() {
        let nasty = "<&>\"'\u{0}\u{7}ok\u{FFFF}";
        let doc = format!("<r a=\"{}\">{}</r>", escape(nasty), escape(nasty));
        let parsed = roxmltree::Document::parse(&doc).expect("escaped XML is well-formed");
        let root = parsed.root_element();
        assert_eq!(root.attribute("a"), Some("<&>\"'ok"));
        assert_eq!(root.text(), Some("<&>\"'ok"));
    }

    #[test]
    fn targets_are_uris() {
        assert_eq!(
            uri_target(" https://x.org/a b?q=é "),
            "https://x.org/a%20b?q=%C3%A9"
        );
        assert_eq!(
            uri_target("https://x.org/%20\"<>"),
            "https://x.org/%20%22%3C%3E"
        );
    }
}
