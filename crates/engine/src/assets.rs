//! Finding the pinned native assets (`.assets/` from `scripts/setup-assets.sh`).

use std::path::{Path, PathBuf};

/// Where an installed Folio keeps its assets, relative to the directory of its executables:
/// `/usr/bin/folio` reads `/usr/lib/folio/assets/` (the Debian package's layout, `scripts/package.sh`).
pub const INSTALLED_ASSETS: &str = "../lib/folio/assets";

/// Looks for `relative` under the environment's assets folder (`FOLIO_ASSETS_DIR`), then under
/// `.assets/` in the working directory and its ancestors, then beside the executable and its
/// ancestors, then in the installed layout ([`INSTALLED_ASSETS`] from the executable's directory).
pub fn find(relative: &str, env: &crate::Environment) -> Option<PathBuf> {
    if let Some(dir) = &env.assets_dir {
        let p = dir.join(relative);
        if p.is_file() {
            return Some(p);
        }
    }
    let starts = [
        std::env::current_dir().ok(),
        std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)),
    ];
    for start in starts.iter().flatten() {
        for dir in start.ancestors() {
            let p = dir.join(".assets").join(relative);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    let exe_dir = starts[1].as_ref()?;
    installed(exe_dir, relative)
}

/// `relative` in the installed layout beside an executable's directory, when it is there.
fn installed(exe_dir: &Path, relative: &str) -> Option<PathBuf> {
    let p = exe_dir.join(INSTALLED_ASSETS).join(relative);
    p.is_file().then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installed_layout_is_found_from_the_executables_directory() {
        let root = tempfile::tempdir().unwrap();
        let bin = root.path().join("usr/bin");
        let model = root.path().join("usr/lib/folio/assets/minilm/vocab.txt");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(model.parent().unwrap()).unwrap();
        std::fs::write(&model, "[PAD]\n").unwrap();
        let found = installed(&bin, "minilm/vocab.txt").expect("found");
        assert_eq!(found.canonicalize().unwrap(), model.canonicalize().unwrap());
        assert!(installed(&bin, "pdfium/libpdfium.so").is_none());
    }
}

/// The local embedding models Folio ships.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EmbeddingModel {
    /// all-MiniLM-L6-v2 (384 dimensions), the default.
    Minilm,
    /// potion-base-2M static embeddings (64 dimensions): fast to ingest, weaker dense search.
    Fast,
}

fn asset_dir(file: &str, env: &crate::Environment) -> Result<PathBuf, crate::EngineError> {
    find(file, env).and_then(|p| p.parent().map(Path::to_path_buf)).ok_or_else(|| {
        crate::EngineError::Invalid(format!(
            "the embedding model is missing ({file}): run scripts/setup-assets.sh, which fetches it"
        ))
    })
}

/// Library options and the embedder for a model, from the pinned assets and what the environment
/// says. Chunks are always sized in MiniLM's word pieces, so both models index the same chunks.
pub fn library_setup(
    model: EmbeddingModel,
    env: &crate::Environment,
) -> Result<(std::sync::Arc<dyn folio_ai::Embedder>, crate::LibraryOptions), crate::EngineError> {
    let minilm = asset_dir("minilm/vocab.txt", env)?;
    let embedder: std::sync::Arc<dyn folio_ai::Embedder> = match model {
        // The weights load while the caller opens the library's stores.
        EmbeddingModel::Minilm => {
            std::sync::Arc::new(folio_ai::MiniLm::load_in_background(&minilm, env.model_run)?)
        }
        EmbeddingModel::Fast => std::sync::Arc::new(folio_ai::StaticEmbedder::load(&asset_dir(
            "potion-base-2M/model.safetensors",
            env,
        )?)?),
    };
    let mut options =
        crate::LibraryOptions { vocab: Some(minilm.join("vocab.txt")), ..crate::LibraryOptions::default() };
    options.convert.pdfium_library = env.pdfium.clone().or_else(|| find("pdfium/libpdfium.so", env));
    options.convert.tesseract_library = env.tesseract.clone();
    options.convert.tessdata = env.tessdata.clone();
    Ok((embedder, options))
}
