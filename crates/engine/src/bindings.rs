//! TypeScript types of everything the desktop UI receives or sends, generated from the Rust types'
//! JSON schemas (schemars, which follows their serde attributes). `ui/src/backend/bindings.ts` is
//! this output, checked in; a test fails when the two drift (`FOLIO_BLESS=1` rewrites the file).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde_json::Value;

/// The generated file's text.
pub fn typescript() -> String {
    let mut defs: BTreeMap<String, String> = BTreeMap::new();
    macro_rules! root {
        ($($t:ty),* $(,)?) => {$(
            add(&mut defs, serde_json::to_value(schemars::schema_for!($t)).expect("schemas are JSON"));
        )*};
    }
    root!(
        crate::Hit,
        crate::SearchRequest,
        crate::SectionView,
        crate::Outline,
        crate::Backlinks,
        crate::DefinitionHit,
        crate::Progress,
        crate::IngestReport,
        crate::DocumentSummary,
        crate::LibraryStatus,
        crate::Settings,
        crate::AssistantSnippet,
        crate::SettingsChange,
        crate::BackendError,
        folio_ai::keys::KeyStatus,
        crate::PageImage,
        crate::WatchedFolder,
        crate::FileFailure,
        crate::ErrorCode,
        crate::MissingDocument,
        crate::about::About,
        crate::SyncReport,
        crate::RepairReport,
        crate::Diagnostics,
    );
    let mut out = String::from(
        "// Generated from the Rust types by folio-engine's `bindings` (cargo test -p folio-engine --test it bindings,\n\
         // FOLIO_BLESS=1 to rewrite). Do not edit.\n\n",
    );
    for (name, ts) in defs {
        out.push_str(&format!("export type {name} = {ts};\n"));
    }
    out
}

fn add(defs: &mut BTreeMap<String, String>, schema: Value) {
    if let Some(d) = schema.get("$defs").and_then(Value::as_object) {
        for (name, s) in d {
            defs.insert(name.clone(), ts(s));
        }
    }
    if let Some(title) = schema.get("title").and_then(Value::as_str) {
        defs.insert(title.to_string(), ts(&schema));
    }
}

fn ts(s: &Value) -> String {
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        return r.rsplit('/').next().unwrap_or("unknown").to_string();
    }
    if let Some(c) = s.get("const") {
        return c.to_string();
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        return e.iter().map(Value::to_string).collect::<Vec<_>>().join(" | ");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = s.get(key).and_then(Value::as_array) {
            let mut parts: Vec<String> = alts.iter().map(ts).collect();
            parts.dedup();
            return parts.join(" | ");
        }
    }
    match s.get("type") {
        Some(Value::Array(types)) => types
            .iter()
            .map(|t| {
                let mut one = s.clone();
                one["type"] = t.clone();
                ts(&one)
            })
            .collect::<Vec<_>>()
            .join(" | "),
        Some(Value::String(t)) => match t.as_str() {
            "string" => "string".into(),
            "integer" | "number" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "array" => match s.get("items") {
                Some(items) => {
                    let inner = ts(items);
                    if inner.contains(' ') {
                        format!("({inner})[]")
                    } else {
                        format!("{inner}[]")
                    }
                }
                None => "unknown[]".into(),
            },
            "object" => object(s),
            _ => "unknown".into(),
        },
        _ => "unknown".into(),
    }
}

fn object(s: &Value) -> String {
    let Some(props) = s.get("properties").and_then(Value::as_object) else {
        return match s.get("additionalProperties") {
            Some(v) if v.is_object() => format!("Record<string, {}>", ts(v)),
            _ => "Record<string, never>".into(),
        };
    };
    let fields: Vec<String> = props.iter().map(|(k, v)| format!("{k}: {}", ts(v))).collect();
    format!("{{ {} }}", fields.join("; "))
}

/// Checks that a type's schema is of a kind the generator handles (used by the test).
pub fn schema_of<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).expect("schemas are JSON")
}
