//! Print the kind the classifier gives each line of stdin (a debugging aid);
//! `--cues` also prints the stance cues found:
//!
//! ```text
//! printf 'Gas rose 5%%.\nsend me the file\n' | cargo run -p amem-extract --example classify_lines -- --cues
//! ```

#![allow(clippy::print_stdout)]

use std::io::BufRead;

fn main() {
    let show_cues = std::env::args().any(|a| a == "--cues");
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        println!("{}\t{}", amem_extract::classify_sentence(&line).as_str(), line);
        if show_cues {
            for c in amem_text::cues::detect_cues(&line) {
                println!("\t{}\t{:?}\t{}", c.class.as_str(), c.text, c.rule);
            }
        }
    }
}
