//! The one integration-test binary: library-level tests first, then end-to-end runs of the
//! `corpus` binary.

mod cache;
mod cdm;
mod cli;
mod files;
mod html;
mod import;
mod judge;
mod layout;
mod notebook;
mod olmocr;
mod omnidoc;
mod openai;
mod paper;
mod report;
mod shard;
mod shared;
mod slurm;
mod table;
mod util;
