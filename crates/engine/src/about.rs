//! What the About panel shows: Folio's version and the third-party parts it ships, each with its
//! licence text as shipped beside it (`scripts/setup-assets.sh` fetches them; the Debian package
//! installs them with the assets).

use serde::Serialize;

/// A third-party part Folio ships.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Component {
    /// The part's name ("all-MiniLM-L6-v2", "PDFium").
    pub name: String,
    /// What Folio uses it for.
    pub role: String,
    /// The licence's name ("Apache-2.0").
    pub licence: String,
    /// The licence's text as shipped, when found.
    pub text: Option<String>,
}

/// Folio's version and the parts it ships.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct About {
    /// Folio's version (the workspace version).
    pub version: String,
    /// The third-party parts shipped with it.
    pub components: Vec<Component>,
}

/// Folio's version and its shipped parts with their licences (read from the assets the
/// environment points at, or the installed ones).
pub fn about(env: &crate::Environment) -> About {
    let read = |relative: &str| std::fs::read_to_string(crate::assets::find(relative, env)?).ok();
    let join = |a: Option<String>, b: Option<String>| match (a, b) {
        (Some(a), Some(b)) => Some(format!("{b}\n\n{a}")),
        (a, b) => a.or(b),
    };
    About {
        version: env!("CARGO_PKG_VERSION").to_string(),
        components: vec![
            Component {
                name: "all-MiniLM-L6-v2".into(),
                role: "the default embedding model (sentence-transformers)".into(),
                licence: "Apache-2.0".into(),
                text: join(read("minilm/LICENSE"), read("minilm/NOTICE")),
            },
            Component {
                name: "potion-base-2M".into(),
                role:
                    "the fast embedding model (Minish Lab, model2vec), as the yantrikdb 0.23.4 crate ships it"
                        .into(),
                licence: "Apache-2.0 (the redistributing crate's licence)".into(),
                text: read("minilm/LICENSE"),
            },
            Component {
                name: "PDFium".into(),
                role: "reads PDF files (the pypdfium2 5.15.2 build)".into(),
                licence: "BSD-3-Clause, Apache-2.0 and the licences of the libraries compiled in".into(),
                text: read("licences/pdfium/LICENSES/BSD-3-Clause.txt"),
            },
        ],
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_the_version_and_each_shipped_part() {
        let env = crate::Environment::default();
        let a = super::about(&env);
        assert_eq!(a.version, env!("CARGO_PKG_VERSION"));
        let names: Vec<&str> = a.components.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["all-MiniLM-L6-v2", "potion-base-2M", "PDFium"]);
        if crate::assets::find("minilm/LICENSE", &env).is_some() {
            assert!(a.components[0].text.as_deref().is_some_and(|t| t.contains("Apache License")));
        }
    }
}
