//! Finding the pinned native assets (`.assets/` from `scripts/setup-assets.sh`).

use std::path::{Path, PathBuf};

/// Looks for `relative` under `$FOLIO_ASSETS_DIR`, then under `.assets/` in the working directory and
/// its ancestors, then beside the executable and its ancestors.
pub fn find(relative: &str) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("FOLIO_ASSETS_DIR").filter(|v| !v.is_empty()) {
        let p = Path::new(&dir).join(relative);
        if p.is_file() {
            return Some(p);
        }
    }
    let starts = [
        std::env::current_dir().ok(),
        std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)),
    ];
    for start in starts.into_iter().flatten() {
        for dir in start.ancestors() {
            let p = dir.join(".assets").join(relative);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
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

fn asset_dir(file: &str) -> Result<PathBuf, crate::EngineError> {
    find(file).and_then(|p| p.parent().map(Path::to_path_buf)).ok_or_else(|| {
        crate::EngineError::Invalid(format!(
            "the embedding model is missing ({file}): run scripts/setup-assets.sh, which fetches it"
        ))
    })
}

/// Library options and the embedder for a model, from the pinned assets. Chunks are always sized
/// in MiniLM's word pieces, so both models index the same chunks.
pub fn library_setup(
    model: EmbeddingModel,
) -> Result<(std::sync::Arc<dyn folio_ai::Embedder>, crate::LibraryOptions), crate::EngineError> {
    let minilm = asset_dir("minilm/vocab.txt")?;
    let embedder: std::sync::Arc<dyn folio_ai::Embedder> = match model {
        EmbeddingModel::Minilm => std::sync::Arc::new(folio_ai::MiniLm::load(&minilm)?),
        EmbeddingModel::Fast => std::sync::Arc::new(folio_ai::StaticEmbedder::load(&asset_dir(
            "potion-base-2M/model.safetensors",
        )?)?),
    };
    let mut options =
        crate::LibraryOptions { vocab: Some(minilm.join("vocab.txt")), ..crate::LibraryOptions::default() };
    options.convert.pdfium_library = find("pdfium/libpdfium.so");
    Ok((embedder, options))
}
