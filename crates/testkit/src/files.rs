//! Files under a folder, and those holding some bytes.

/// Files under `dir` (recursively) for which `pred` holds, sorted.
pub fn files_under(
    dir: &std::path::Path,
    pred: &dyn Fn(&std::path::Path) -> bool,
) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("a folder the walk found").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if pred(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Files under `dir` whose bytes contain `needle` (a key must be in none of them).
pub fn files_containing(dir: &std::path::Path, needle: &[u8]) -> Vec<std::path::PathBuf> {
    files_under(dir, &|p| std::fs::read(p).unwrap_or_default().windows(needle.len()).any(|w| w == needle))
}
