//! Deck CSS: what a deck's own stylesheet may hold. It is tokenized with `cssparser` (the
//! tokenizer browsers' CSS follows) and written back token by token without what would
//! reach outside the deck's page or run code: `@import` rules, `url()`s with a scheme other
//! than `http`, `https` or a `data:` image or font, `expression()` and the binding
//! properties old browsers ran. Everything else is kept as written. What was
//! taken out is named, so an import can say so. The page that shows it escapes `<`.

use cssparser::{Delimiter, ParseError, Parser, ToCss, Token, TokenSerializationType};

use crate::{Error, Result};

/// The largest deck CSS, in bytes.
pub const MAX_CSS_BYTES: usize = 200_000;

/// A deck's CSS after [`clean`]: the CSS and what was taken out of it, one line each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CleanCss {
    pub css: String,
    pub dropped: Vec<String>,
}

/// The CSS of `text` without what a deck's CSS may not hold; an error when it is over
/// [`MAX_CSS_BYTES`] or holds a NUL.
pub fn clean(text: &str) -> Result<CleanCss> {
    crate::text::refuse_nul("the CSS", text)?;
    if text.len() > MAX_CSS_BYTES {
        return Err(Error::invalid(format!(
            "the CSS is {} bytes; at most {MAX_CSS_BYTES} are kept",
            text.len()
        )));
    }
    let mut parser = Parser::new(text);
    let mut cleaner = Cleaner {
        out: CleanCss {
            css: String::with_capacity(text.len()),
            dropped: Vec::new(),
        },
        last: TokenSerializationType::Nothing,
    };
    cleaner.tokens(&mut parser, false);
    Ok(cleaner.out)
}

/// Whether a `url()` (or an `image-set()` string) may stay: a relative URL, `http(s)`, or a
/// `data:` image or font.
fn allowed_url(url: &str) -> bool {
    let url = url.trim().to_ascii_lowercase();
    let scheme_end = url.find(':');
    let path_start = url.find(['/', '?', '#']).unwrap_or(url.len());
    match scheme_end {
        // A colon after the path starts is not a scheme.
        Some(end) if end < path_start => {
            let (scheme, rest) = (&url[..end], &url[end + 1..]);
            match scheme {
                "http" | "https" => true,
                "data" => ["image/", "font/", "application/font", "application/x-font"]
                    .iter()
                    .any(|kind| rest.starts_with(kind)),
                _ => false,
            }
        }
        _ => true,
    }
}

/// Functions whose arguments are run or name a resource.
fn function_kind(name: &str) -> FunctionKind {
    match name.to_ascii_lowercase().as_str() {
        "url" | "src" => FunctionKind::Url,
        "image-set" | "-webkit-image-set" => FunctionKind::ImageSet,
        "expression" | "-moz-binding" => FunctionKind::Refused,
        _ => FunctionKind::Plain,
    }
}

enum FunctionKind {
    Url,
    ImageSet,
    Refused,
    Plain,
}

struct Cleaner {
    out: CleanCss,
    last: TokenSerializationType,
}

impl Cleaner {
    fn drop(&mut self, what: String) {
        if !self.out.dropped.contains(&what) {
            self.out.dropped.push(what);
        }
    }

    fn write(&mut self, token: &Token<'_>) {
        if let Token::Comment(text) = token {
            // A comment keeps the tokens around it apart by itself.
            self.out.css.push_str("/*");
            self.out.css.push_str(text);
            self.out.css.push_str("*/");
            self.last = TokenSerializationType::Nothing;
            return;
        }
        let kind = token.serialization_type();
        // Two tokens a comment kept apart stay apart.
        if self.last.needs_separator_when_before(kind) {
            self.out.css.push_str("/**/");
        }
        token
            .to_css(&mut self.out.css)
            .expect("writing to a String cannot fail");
        self.last = kind;
    }

    /// Writes the tokens of `parser` (a stylesheet or a block's inside). In an
    /// `image-set()`, `strings_are_urls`.
    fn tokens(&mut self, parser: &mut Parser<'_>, strings_are_urls: bool) {
        loop {
            let token = match parser.next_including_whitespace_and_comments() {
                Ok(t) => t.clone(),
                Err(_) => return,
            };
            match &token {
                Token::BadString(_) => {}
                Token::BadUrl(url) => self.refuse_url(url),
                Token::CloseParenthesis | Token::CloseSquareBracket | Token::CloseCurlyBracket => {
                    // Unbalanced: nothing opened it.
                }
                Token::AtKeyword(name) if name.eq_ignore_ascii_case("import") => {
                    self.drop("an @import rule (a deck's CSS loads no other stylesheet)".into());
                    while !matches!(parser.next(), Ok(Token::Semicolon) | Err(_)) {}
                }
                Token::UnquotedUrl(url) => {
                    if allowed_url(url) {
                        self.write(&token);
                    } else {
                        self.refuse_url(url);
                    }
                }
                Token::QuotedString(url) if strings_are_urls && !allowed_url(url) => {
                    self.refuse_url(url);
                }
                Token::Ident(name)
                    if name.eq_ignore_ascii_case("behavior")
                        || name.eq_ignore_ascii_case("-moz-binding") =>
                {
                    self.drop(format!("the property {name}"));
                    self.write(&Token::Ident("-lectern-dropped".into()));
                }
                Token::Function(name) => match function_kind(name) {
                    FunctionKind::Url => self.url_function(parser, &token),
                    FunctionKind::Refused => {
                        self.drop(format!("the function {name}()"));
                        self.write(&Token::Ident("none".into()));
                    }
                    FunctionKind::ImageSet => self.block(parser, &token, true),
                    FunctionKind::Plain => self.block(parser, &token, false),
                },
                Token::ParenthesisBlock | Token::SquareBracketBlock | Token::CurlyBracketBlock => {
                    self.block(parser, &token, strings_are_urls)
                }
                _ => self.write(&token),
            }
        }
    }

    fn refuse_url(&mut self, url: &str) {
        let shown: String = url.chars().take(60).collect();
        self.drop(format!("the URL {shown}"));
        self.write(&Token::Ident("none".into()));
    }

    /// A block as written: its opening token, its inside, its closing token.
    fn block(&mut self, parser: &mut Parser<'_>, open: &Token<'_>, strings_are_urls: bool) {
        self.write(open);
        let _ = parser.parse_nested_block(|inner| {
            self.tokens(inner, strings_are_urls);
            Ok::<_, ParseError<()>>(())
        });
        self.write(&match open {
            Token::SquareBracketBlock => Token::CloseSquareBracket,
            Token::CurlyBracketBlock => Token::CloseCurlyBracket,
            _ => Token::CloseParenthesis,
        });
    }

    /// `url("...")` or `src("...")`: kept when its URL may stay, else `none`.
    fn url_function(&mut self, parser: &mut Parser<'_>, open: &Token<'_>) {
        let url = parser
            .parse_nested_block(|inner| {
                let url = inner.expect_string().map(|s| String::from(&**s));
                while inner.next().is_ok() {}
                Ok::<_, ParseError<()>>(url.ok())
            })
            .ok()
            .flatten();
        match url {
            Some(url) if allowed_url(&url) => {
                self.write(open);
                self.write(&Token::QuotedString(url.clone().into()));
                self.write(&Token::CloseParenthesis);
            }
            Some(url) => self.refuse_url(&url),
            None => self.drop("a url() without a URL".into()),
        }
    }
}

/// The custom properties (`--name: value`) the CSS sets, in order, wherever they are (the
/// exports read the presets' variables a deck's CSS overrides from here).
pub fn custom_properties(text: &str) -> Vec<(String, String)> {
    let mut parser = Parser::new(text);
    let mut out = Vec::new();
    properties_in(&mut parser, &mut out);
    out
}

fn properties_in(parser: &mut Parser<'_>, out: &mut Vec<(String, String)>) {
    let mut name: Option<String> = None;
    loop {
        let token = match parser.next() {
            Ok(t) => t.clone(),
            Err(_) => return,
        };
        match token {
            Token::Ident(ident) if ident.starts_with("--") => name = Some(ident.to_string()),
            Token::Colon if name.is_some() => {
                let value = parser.parse_until_before(Delimiter::Semicolon, |inner| {
                    let start = inner.position();
                    while inner.next_including_whitespace_and_comments().is_ok() {}
                    Ok::<_, ParseError<()>>(inner.slice_from(start).trim().to_string())
                });
                if let (Some(name), Ok(value)) = (name.take(), value) {
                    out.push((name, value));
                }
            }
            Token::CurlyBracketBlock
            | Token::Function(_)
            | Token::ParenthesisBlock
            | Token::SquareBracketBlock => {
                name = None;
                let _ = parser.parse_nested_block(|inner| {
                    properties_in(inner, out);
                    Ok::<_, ParseError<()>>(())
                });
            }
            _ => name = None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cleaned(text: &str) -> (String, Vec<String>) {
        let c = clean(text).unwrap();
        (c.css, c.dropped)
    }

    #[test]
    fn keeps_ordinary_css_as_written() {
        let css = ":root body, .reveal { --lectern-bg: #191919; }\n\
                   .reveal h1 { text-transform: uppercase; font: 600 1.2em/1 \"Source Sans Pro\", sans-serif; }\n\
                   @media (max-width: 600px) { .reveal pre { width: 100%; } }\n\
                   .reveal section img { background: url(/media/a.png) no-repeat, url(\"https://example.com/b.jpg\"); }\n\
                   @font-face { font-family: X; src: url(data:font/woff2;base64,AAAA) format(\"woff2\"); }";
        let (out, dropped) = cleaned(css);
        assert_eq!(out, css);
        assert!(dropped.is_empty());
    }

    #[test]
    fn takes_out_imports_scripts_and_foreign_urls() {
        let (out, dropped) = cleaned(
            "@import url(https://fonts.example/x.css);\n\
             h1 { color: red; background: url(javascript:alert(1)); }\n\
             h2 { background: url('vbscript:x'); width: expression(alert(1)); }\n\
             h3 { -moz-binding: url(x.xml#b); behavior: url(x.htc); }\n\
             h4 { background-image: image-set(\"data:text/html,<b>\" 1x, \"a.png\" 2x); }",
        );
        assert!(
            !out.contains("@import") && !out.contains("javascript") && !out.contains("vbscript")
        );
        assert!(!out.contains("expression") && !out.contains("text/html"));
        assert!(!out.contains("-moz-binding") && !out.contains("behavior"));
        assert!(
            out.contains("h1 { color: red; background: none; }"),
            "{out}"
        );
        assert!(out.contains("\"a.png\" 2x"), "{out}");
        assert_eq!(dropped.len(), 7, "{dropped:?}");
        assert!(dropped[0].contains("@import"));
    }

    #[test]
    fn a_dropped_token_never_makes_a_comment() {
        // Without the unbalanced "}", "/" and "*" would read as a comment's start.
        let once = clean("''/}*").unwrap().css;
        assert_eq!(clean(&once).unwrap().css, once);
    }

    #[test]
    fn comments_stay() {
        let (out, _) = cleaned("a/* x */b { color: red/**/ } /* end */");
        assert_eq!(out, "a/* x */b { color: red/**/ } /* end */");
    }

    #[test]
    fn what_is_taken_out_keeps_tokens_apart() {
        let (out, _) = cleaned("h1 { b: x/**/url(javascript:y) }");
        assert_eq!(out, "h1 { b: x/**/none }");
    }

    #[test]
    fn refuses_oversized_css_and_nul() {
        assert!(clean(&"a{}".repeat(MAX_CSS_BYTES)).is_err());
        assert!(clean("a{}\0").is_err());
    }

    #[test]
    fn urls_by_scheme() {
        for ok in [
            "a.png",
            "/media/x.png",
            "#f",
            "https://x/y",
            "HTTP://x",
            "data:image/png;base64,A",
            "a.png?x=y:z",
        ] {
            assert!(allowed_url(ok), "{ok}");
        }
        for bad in [
            "javascript:x",
            " JavaScript:x",
            "data:text/html,x",
            "file:///etc",
            "ftp://x",
        ] {
            assert!(!allowed_url(bad), "{bad}");
        }
    }

    #[test]
    fn reads_custom_properties_in_order() {
        let css = ":root body, .reveal { --lectern-bg: #191919; --lectern-font: \"Source Sans Pro\", sans-serif; }\n\
                   @media print { .x { --lectern-bg: rgb(1, 2, 3) } } h1 { color: red; --empty:; }";
        assert_eq!(
            custom_properties(css),
            [
                ("--lectern-bg".to_string(), "#191919".to_string()),
                (
                    "--lectern-font".into(),
                    "\"Source Sans Pro\", sans-serif".into()
                ),
                ("--lectern-bg".into(), "rgb(1, 2, 3)".into()),
                ("--empty".into(), "".into()),
            ]
        );
    }

    proptest! {
        // Whatever comes in, what comes out holds nothing a cleaning would take out again,
        // and cleaning it again changes nothing.
        #[test]
        fn cleaning_is_settled(text in "[a-z{}():;@/*'\" .#,-]{0,80}|.{0,40}(url|@import|expression)\\(?[a-z:/\"']{0,20}\\)?.{0,20}") {
            if let Ok(once) = clean(&text) {
                let twice = clean(&once.css).unwrap();
                prop_assert!(twice.dropped.is_empty(), "{:?} -> {:?}: {:?}", text, once.css, twice.dropped);
                prop_assert_eq!(&twice.css, &once.css);
            }
        }
    }
}
