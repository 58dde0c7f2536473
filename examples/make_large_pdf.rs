//! Writes a valid one-page PDF of a given size (a large grey image under a line of text), for
//! `bench/large_pdf.sh`: `cargo run --example make_large_pdf -- OUT.pdf BYTES [image|attachment]`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(out), Some(bytes)) = (args.first(), args.get(1).and_then(|b| b.parse::<u64>().ok()))
    else {
        eprintln!("usage: make_large_pdf OUT.pdf BYTES");
        std::process::exit(2);
    };
    use corpus::sample::large::Bulk;
    let bulk = match args.get(2).map(String::as_str) {
        None | Some("image") => Bulk::Image,
        Some("attachment") => Bulk::Attachment,
        Some(other) => {
            eprintln!("unknown kind {other:?}: image or attachment");
            std::process::exit(2);
        }
    };
    let text = "A very large page: scanned atlases exceed one SQLite value";
    match corpus::sample::large::write_large_pdf(std::path::Path::new(out), bytes, bulk, text) {
        Ok(n) => println!("{out}: {n} bytes"),
        Err(e) => {
            eprintln!("{out}: {e}");
            std::process::exit(1);
        }
    }
}
