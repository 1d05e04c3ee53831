//! What a shell reads from the process environment, once, at its start, and hands to the engine:
//! where the models, PDFium and Tesseract are, how the embedding model runs, and the Anthropic API's
//! address. As ripgrep turns its flags and environment into one options value at the edge, no
//! crate below the shells reads an environment variable.

use crate::EngineError;
use folio_ai::{Int8Kernel, Precision, RunOptions};
use std::path::PathBuf;

/// The environment's settings for the engine (see the module note). `Default` is an environment
/// that sets none of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    /// `FOLIO_ASSETS_DIR`: where the models and PDFium are looked for first.
    pub assets_dir: Option<PathBuf>,
    /// `FOLIO_PDFIUM`: `libpdfium.so`, or the folder holding it.
    pub pdfium: Option<PathBuf>,
    /// `FOLIO_TESSERACT`: `libtesseract.so.5`, or the folder holding it.
    pub tesseract: Option<PathBuf>,
    /// `TESSDATA_PREFIX`: Tesseract's language data (the folder, or one whose `tessdata` holds it).
    pub tessdata: Option<PathBuf>,
    /// `FOLIO_PRECISION` (`int8`, `f32`) and `FOLIO_INT8_KERNEL` (`amx`, `vnni`, `avxvnni`, `avx2`,
    /// `scalar`): how MiniLM runs, to measure one way against another.
    pub model_run: RunOptions,
    /// `ANTHROPIC_BASE_URL`: the Anthropic API's address (a proxy, or a test server).
    pub anthropic_base_url: Option<String>,
    /// `OPENAI_BASE_URL`: an OpenAI-compatible server's address, where the settings name none.
    pub openai_base_url: Option<String>,
}

impl Environment {
    /// The process's environment. A variable set to a value Folio does not know is an error that
    /// names it; an empty one counts as unset.
    pub fn from_process() -> Result<Environment, EngineError> {
        Self::from_vars(|name| {
            std::env::var_os(name).filter(|v| !v.is_empty()).map(|v| v.to_string_lossy().into_owned())
        })
    }

    /// The settings that `var` gives for each variable's name.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Environment, EngineError> {
        let path = |name: &str| var(name).map(PathBuf::from);
        let precision = match var("FOLIO_PRECISION").as_deref() {
            None => Precision::Auto,
            Some("int8") => Precision::Int8,
            Some("f32") => Precision::F32,
            Some(other) => {
                return Err(EngineError::Invalid(format!("FOLIO_PRECISION={other}: it takes int8 or f32")))
            }
        };
        let kernel = match var("FOLIO_INT8_KERNEL") {
            None => None,
            Some(name) => {
                let kernel = Int8Kernel::parse(&name).ok_or_else(|| {
                    EngineError::Invalid(format!(
                        "FOLIO_INT8_KERNEL={name}: it takes amx, vnni, avxvnni, avx2 or scalar"
                    ))
                })?;
                if !folio_ai::int8_kernels().contains(&kernel) {
                    return Err(EngineError::Invalid(format!(
                        "FOLIO_INT8_KERNEL={name}: this CPU has no such kernel (it has {:?})",
                        folio_ai::int8_kernels()
                    )));
                }
                Some(kernel)
            }
        };
        Ok(Environment {
            assets_dir: path("FOLIO_ASSETS_DIR"),
            pdfium: path("FOLIO_PDFIUM"),
            tesseract: path("FOLIO_TESSERACT"),
            tessdata: path("TESSDATA_PREFIX"),
            model_run: RunOptions { precision, kernel },
            anthropic_base_url: var("ANTHROPIC_BASE_URL"),
            openai_base_url: var("OPENAI_BASE_URL"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> Result<Environment, EngineError> {
        let map: HashMap<String, String> =
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Environment::from_vars(|name| map.get(name).cloned())
    }

    #[test]
    fn variables_become_settings_and_unknown_values_are_named() {
        let e = env(&[
            ("FOLIO_ASSETS_DIR", "/opt/assets"),
            ("FOLIO_PRECISION", "f32"),
            ("FOLIO_INT8_KERNEL", "scalar"),
        ])
        .unwrap();
        assert_eq!(e.assets_dir, Some(PathBuf::from("/opt/assets")));
        assert_eq!(e.model_run, RunOptions { precision: Precision::F32, kernel: Some(Int8Kernel::Scalar) });
        assert_eq!(env(&[]).unwrap(), Environment::default());
        let bad = env(&[("FOLIO_PRECISION", "fp16")]).unwrap_err().to_string();
        assert!(bad.contains("FOLIO_PRECISION=fp16"), "{bad}");
        let bad = env(&[("FOLIO_INT8_KERNEL", "neon")]).unwrap_err().to_string();
        assert!(bad.contains("FOLIO_INT8_KERNEL=neon"), "{bad}");
    }
}
