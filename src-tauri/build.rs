//! `folio-desktop`'s build script: `tauri_build` checks `tauri.conf.json`, resolves the permissions
//! of `capabilities/` (writing their schemas to `gen/schemas/`), and on Windows embeds the icon.

fn main() {
    tauri_build::build()
}
