//! Paragraph styles (`word/styles.xml`): which are headings, titles, list paragraphs, and their outline levels, through `basedOn` chains.

use super::*;

/// What a paragraph style makes of its paragraphs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Heading(u8),
    Title,
    Body,
}

#[derive(Debug, Clone, Default)]
pub(super) struct StyleDef {
    pub(super) name: String,
    pub(super) based_on: Option<String>,
    pub(super) outline: Option<u8>,
    pub(super) num_id: Option<u32>,
    pub(super) ilvl: Option<u8>,
}

#[derive(Debug, Default)]
pub(super) struct Styles {
    pub(super) defs: HashMap<String, StyleDef>,
    pub(super) default_paragraph: Option<String>,
}

/// A heading number in a style name: "heading 1", "Heading1", "H2", "Überschrift 3", "Titre 1".
pub(super) fn name_role(name: &str) -> Option<Role> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"(?i)^(?:.*[\s_\-])?(?:heading|headline|überschrift|uberschrift|titre|título|titulo|titolo|kop|rubrik|otsikko|nagłówek|naglowek|nadpis|overskrift|заголовок|标题|見出し|h)\s*[_\-]?\s*([1-9])(?:$|[^0-9].*$)",
        )
        .expect("valid regex")
    });
    let trimmed = name.trim();
    if trimmed.eq_ignore_ascii_case("title") {
        return Some(Role::Title);
    }
    let level = re.captures(trimmed)?.get(1)?.as_str().parse::<u8>().ok()?;
    Some(Role::Heading(level))
}

impl Styles {
    pub(super) fn parse(xml: &str) -> Styles {
        let mut styles = Styles::default();
        let mut reader = Reader::from_str(xml);
        reader.config_mut().check_end_names = false;
        let mut current: Option<(String, StyleDef)> = None;
        while let Ok(event) = reader.read_event() {
            match event {
                Event::Start(e) | Event::Empty(e) => {
                    let local = e.local_name();
                    match local.as_ref() {
                        b"style" => {
                            let ty = attr(&e, b"type").unwrap_or_else(|| "paragraph".into());
                            let id = attr(&e, b"styleId").unwrap_or_default();
                            if ty == "paragraph" || ty == "numbering" {
                                if ty == "paragraph"
                                    && attr(&e, b"default").is_some_and(|d| d == "1" || d == "true")
                                {
                                    styles.default_paragraph = Some(id.clone());
                                }
                                current = Some((id, StyleDef::default()));
                            } else {
                                current = None;
                            }
                        }
                        b"name" => {
                            if let Some((_, s)) = current.as_mut() {
                                s.name = val(&e).unwrap_or_default();
                            }
                        }
                        b"basedOn" => {
                            if let Some((_, s)) = current.as_mut() {
                                s.based_on = val(&e);
                            }
                        }
                        b"outlineLvl" => {
                            if let Some((_, s)) = current.as_mut() {
                                s.outline = val(&e).and_then(|v| v.parse().ok());
                            }
                        }
                        b"numId" => {
                            if let Some((_, s)) = current.as_mut() {
                                s.num_id = val(&e).and_then(|v| v.parse().ok());
                            }
                        }
                        b"ilvl" => {
                            if let Some((_, s)) = current.as_mut() {
                                s.ilvl = val(&e).and_then(|v| v.parse().ok());
                            }
                        }
                        b"pPrChange" | b"rPrChange" => {
                            let end = e.name().as_ref().to_vec();
                            // A tracked change's earlier formatting is skipped; a malformed one
                            // ends the reading below, at the next event.
                            let _ = reader.read_to_end(quick_xml::name::QName(&end));
                        }
                        _ => {}
                    }
                }
                Event::End(e) if e.local_name().as_ref() == b"style" => {
                    if let Some((id, s)) = current.take() {
                        styles.defs.insert(id, s);
                    }
                }
                Event::Eof => break,
                _ => {}
            }
        }
        styles
    }

    /// The role of a paragraph style: its own outline level, else its name, else its parent's.
    pub(super) fn role(&self, id: &str) -> Role {
        let mut id = id.to_string();
        for _ in 0..32 {
            let Some(def) = self.defs.get(&id) else {
                // A style the document uses but does not define: judge by its id.
                return name_role(&id).unwrap_or(Role::Body);
            };
            if let Some(o) = def.outline {
                return if o < 9 { Role::Heading(o + 1) } else { Role::Body };
            }
            if let Some(r) = name_role(&def.name).or_else(|| name_role(&id)) {
                return r;
            }
            match &def.based_on {
                Some(b) if b != &id => id = b.clone(),
                _ => return Role::Body,
            }
        }
        Role::Body
    }

    /// The numbering a style (or the style it is based on) gives its paragraphs: `(numId, ilvl)`.
    pub(super) fn numbering(&self, id: &str) -> (Option<u32>, Option<u8>) {
        let (mut num, mut lvl) = (None, None);
        let mut id = id.to_string();
        for _ in 0..32 {
            let Some(def) = self.defs.get(&id) else { break };
            if num.is_none() {
                num = def.num_id;
            }
            if lvl.is_none() {
                lvl = def.ilvl;
            }
            if num.is_some() && lvl.is_some() {
                break;
            }
            match &def.based_on {
                Some(b) if b != &id => id = b.clone(),
                _ => break,
            }
        }
        (num, lvl)
    }
}
