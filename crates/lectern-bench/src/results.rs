//! `bench/results.md`: each run's load figures appended as one section, in the format the
//! file's head describes (a heading naming the run, one row per scenario).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use crate::client::Outcome;

/// The run's section, filled as scenarios finish.
pub struct Results {
    heading: String,
    compare: bool,
    rows: Vec<String>,
}

impl Results {
    pub fn new(
        backend: &str,
        servers: usize,
        connections: usize,
        seconds: u64,
        compare: bool,
    ) -> Self {
        let date = output("date", &["-u", "+%F"]);
        let build = output("git", &["rev-parse", "--short", "HEAD"]);
        let plural = if servers == 1 { "" } else { "s" };
        Results {
            heading: format!(
                "## {date} · {backend} · {servers} server{plural} · {connections} connections · \
                 {seconds} s · build {build}"
            ),
            compare,
            rows: Vec::new(),
        }
    }

    /// A load scenario: Lectern's figures, its ratio to the baseline and, with `--compare`,
    /// to the previous build.
    pub fn load(
        &mut self,
        scenario: &str,
        lectern: &Outcome,
        baseline: &Outcome,
        previous: Option<&Outcome>,
    ) {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let mut row = format!(
            "| {scenario} | {:.0} | {:.2} | {:.2} | {:.2} |",
            lectern.rps(),
            ms(lectern.p50),
            ms(lectern.p99),
            lectern.rps() / baseline.rps()
        );
        if self.compare {
            let ratio = previous.map(|p| format!(" {:.2}", lectern.rps() / p.rps()));
            let _ = write!(row, "{} |", ratio.unwrap_or_default());
        }
        self.rows.push(row);
    }

    /// Appends the section to `file` (nothing when no load scenario ran).
    pub fn append_to(&self, file: &Path) -> std::io::Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let mut section = format!(
            "\n{}\n\n| scenario | req/s | p50 ms | p99 ms | of baseline |",
            self.heading
        );
        let mut rule = String::from("|---|---|---|---|---|");
        if self.compare {
            section.push_str(" of previous |");
            rule.push_str("---|");
        }
        let _ = write!(section, "\n{rule}\n{}\n", self.rows.join("\n"));
        let mut out = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(file)?;
        out.write_all(section.as_bytes())
    }
}

/// A command's first line of output, or "unknown".
fn output(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}
