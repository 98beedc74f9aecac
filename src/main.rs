use std::process::ExitCode;

fn main() -> ExitCode {
    timeshare::cli::main()
}
