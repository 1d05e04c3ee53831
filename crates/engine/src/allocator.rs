//! The memory allocator's settings for Folio's processes.

/// Caps glibc's malloc at two arenas. By default glibc gives threads up to eight arenas a core;
/// an ingest's threads (the encoder's, LanceDB's runtime, tantivy's, the converter's) each allocate
/// in their own, and memory freed in one arena stays there, so the resident size grows from
/// document to document: the 40 ObliQA rulebooks peaked at 858 MB with the default and at 430 MB
/// with two arenas, at the same speed (`MALLOC_ARENA_MAX=2 SKIP_PEER=1 scripts/bench/ingest.sh`).
/// Call it first in `main`, before any thread starts. Elsewhere (musl, macOS, Windows) it does
/// nothing.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // An explicit MALLOC_ARENA_MAX from the environment wins (glibc read it at start-up).
        if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
            // SAFETY: mallopt only changes the allocator's parameters; it is called before this
            // process starts other threads, and M_ARENA_MAX takes any positive count.
            unsafe {
                libc::mallopt(libc::M_ARENA_MAX, 2);
            }
        }
    }
}
