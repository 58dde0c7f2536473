//! A progress bar on stderr, hidden when stderr is not a terminal or with `-q`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// An indicatif bar behind the library's `Progress` trait.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// Returns a bar labelled `what`; it draws nothing if `quiet` or stderr is not a TTY.
    pub fn new(what: &str, quiet: bool) -> Bar {
        let bar = ProgressBar::hidden();
        if !quiet && std::io::stderr().is_terminal() {
            bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(8));
        }
        let style = ProgressStyle::with_template(
            "{prefix:>8} [{bar:30}] {pos}/{len} {per_sec:>9} eta {eta:>4} {wide_msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(what.to_string());
        Bar { bar }
    }
}

impl corpus::progress::Progress for Bar {
    fn start(&self, total: u64) {
        self.bar.set_length(total);
        self.bar.enable_steady_tick(Duration::from_millis(250));
    }

    fn advance(&self, item: &str, _ok: bool) {
        self.bar.set_message(item.to_string());
        self.bar.inc(1);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// What a long set-up step is doing (a preset's install): a spinner with the latest line on
/// a terminal, plain lines on stderr otherwise, nothing with `-q`.
pub struct Spinner {
    bar: Option<ProgressBar>,
    prefix: String,
    quiet: bool,
}

impl Spinner {
    /// Returns a spinner labelled `what`.
    pub fn new(what: &str, quiet: bool) -> Spinner {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new_spinner();
            let style = ProgressStyle::with_template("{spinner} {prefix}: {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            bar.set_style(style);
            bar.set_prefix(what.to_string());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Spinner { bar, prefix: what.to_string(), quiet }
    }

    /// Shows one line of what is happening.
    pub fn say(&self, msg: &str) {
        match &self.bar {
            Some(b) => b.set_message(msg.to_string()),
            None if !self.quiet => eprintln!("{}: {msg}", self.prefix),
            None => {}
        }
    }

    /// Removes the spinner.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
