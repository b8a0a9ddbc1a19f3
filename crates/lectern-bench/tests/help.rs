//! `lectern-bench --help` prints how to run it and every scenario, and exits 0.

#[test]
fn help_prints_the_usage_and_the_scenarios() {
    for flag in ["--help", "-h"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_lectern-bench"))
            .arg(flag)
            .output()
            .expect("the benchmark program runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{flag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("usage: lectern-bench"), "{stdout}");
        for scenario in ["get_deck", "update_slide", "editor_200", "export_pdf_50"] {
            assert!(stdout.contains(scenario), "{scenario} missing: {stdout}");
        }
    }
}
