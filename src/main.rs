//! Entry point: parse the command line and dispatch (see `cli`).

fn main() -> std::process::ExitCode {
    lectern::cli::run()
}
