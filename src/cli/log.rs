//! The log: lines on stderr (stdout carries the admin commands' output), filtered by
//! `RUST_LOG` (default `info,sqlx=warn`), each naming the fields of the spans it is in, such as
//! the `request` span every HTTP request runs in (`http::request_id`).
//!
//! The fields are written by [`LogFields`] rather than tracing-subscriber's default: a span's
//! fields are written out when the span is made, whether or not a line is ever logged in it,
//! and the default writes every value through `Debug` inside its ANSI styling (a large share
//! of a cached `get_deck`'s instructions went to the `request` span's three fields).

use std::fmt;

use tracing::field::{Field, Visit};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::Writer;

/// Installs the log for this process (once; later calls change nothing).
pub fn init() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,sqlx=warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .fmt_fields(LogFields)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// Writes fields as `name=value` separated by spaces, the message first and without its
/// name. A string of printable ASCII without spaces, quotes, backslashes or `=` is written as
/// it is (`path=/v1/decks/7`); any other string, and every other value, as its `Debug` form
/// (quoted and escaped for strings), so that no value can end a line or forge a field.
#[derive(Debug, Default, Clone, Copy)]
pub struct LogFields;

impl<'writer> FormatFields<'writer> for LogFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut visitor = FieldWriter {
            writer,
            result: Ok(()),
            first: true,
        };
        fields.record(&mut visitor);
        visitor.result
    }
}

struct FieldWriter<'writer> {
    writer: Writer<'writer>,
    result: fmt::Result,
    first: bool,
}

impl FieldWriter<'_> {
    /// The separator and `name=` (nothing for the message).
    fn start(&mut self, field: &Field) -> fmt::Result {
        if !self.first {
            self.writer.write_char(' ')?;
        }
        self.first = false;
        if field.name() != "message" {
            self.writer.write_str(field.name())?;
            self.writer.write_char('=')?;
        }
        Ok(())
    }
}

/// Whether `s` can stand unquoted in a line: printable ASCII, no space, quote, backslash or `=`.
fn is_bare(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b'"' | b'\\' | b'='))
}

impl Visit for FieldWriter<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if self.result.is_ok() {
            self.result = self.start(field).and_then(|()| {
                if is_bare(value) {
                    self.writer.write_str(value)
                } else {
                    write!(self.writer, "{value:?}")
                }
            });
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if self.result.is_ok() {
            self.result = self
                .start(field)
                .and_then(|()| write!(self.writer, "{value:?}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};

    use super::*;

    /// A log writer into memory.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Lines {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// What the lines logged by `f` read, with the formatter of [`init`].
    fn logged(f: impl FnOnce()) -> String {
        let lines = Lines::default();
        let writer = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .fmt_fields(LogFields)
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .without_time()
            .finish();
        tracing::subscriber::with_default(subscriber, f);
        String::from_utf8(lines.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn lines_name_the_request_span_and_the_event_fields() {
        let out = logged(|| {
            let span = tracing::info_span!(
                "request",
                method = "GET",
                path = "/v1/decks/7",
                request.id = "Ab12-1f"
            );
            let _in = span.enter();
            tracing::warn!(deck.id = 7, error = %"disk full", "storing a thumbnail failed");
        });
        assert_eq!(
            out,
            " WARN request{method=GET path=/v1/decks/7 request.id=Ab12-1f}: lectern::cli::log::tests: \
             storing a thumbnail failed deck.id=7 error=disk full\n"
        );
    }

    #[test]
    fn values_that_could_break_a_line_or_forge_a_field_are_quoted() {
        let out = logged(|| {
            tracing::info!(
                given = "a\nINFO forged=1",
                spaced = "two words",
                quote = "say \"hi\"",
                eq = "a=b",
                empty = "",
                "m"
            );
        });
        assert_eq!(out.lines().count(), 1, "{out}");
        assert!(
            out.strip_suffix('\n').is_some_and(|line| line.ends_with(
                r#"m given="a\nINFO forged=1" spaced="two words" quote="say \"hi\"" eq="a=b" empty="""#
            )),
            "{out}"
        );
    }
}
