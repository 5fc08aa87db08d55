//! Gate throughput (written below).
fn main() {}
