//! The one integration-test binary: library-level tests first, then end-to-end runs of the
//! `corpus` binary.

mod cache;
mod cdm;
mod cdm_tokens;
mod cli;
mod detection;
mod docs;
mod doctor;
mod endpoints;
mod files;
mod formula;
mod gate;
mod gt_vs_gt;
mod html;
mod import;
mod import_pipelines;
mod judge;
mod layout;
mod notebook;
mod olmocr;
mod omnidoc;
mod openai;
mod paper;
mod parsebench;
mod presets;
mod report;
mod shard;
mod shared;
mod slurm;
mod synth;
mod table;
mod table_study;
mod util;
