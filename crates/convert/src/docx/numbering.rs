//! List numbering (`word/numbering.xml`): abstract and concrete numberings, level formats and counters, giving each numbered paragraph its printed label.

use super::*;

#[derive(Debug, Clone)]
pub(super) struct Level {
    pub(super) start: i64,
    pub(super) fmt: String,
    pub(super) text: Option<String>,
    pub(super) pstyle: Option<String>,
    pub(super) legal: bool,
    pub(super) restart: Option<u8>,
}

impl Default for Level {
    fn default() -> Self {
        Level { start: 1, fmt: "decimal".into(), text: None, pstyle: None, legal: false, restart: None }
    }
}

#[derive(Debug, Clone, Default)]
pub(super) struct AbstractNum {
    pub(super) levels: Vec<Option<Level>>,
    pub(super) num_style_link: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub(super) struct Num {
    pub(super) abstract_id: String,
    pub(super) overrides: Vec<(usize, i64)>,
}

#[derive(Debug, Default)]
pub(super) struct Numbering {
    pub(super) abstracts: HashMap<String, AbstractNum>,
    pub(super) nums: HashMap<u32, Num>,
}

impl Numbering {
    pub(super) fn parse(xml: &str) -> Numbering {
        let mut n = Numbering::default();
        let mut reader = Reader::from_str(xml);
        reader.config_mut().check_end_names = false;
        let mut abs: Option<(String, AbstractNum)> = None;
        let mut lvl: Option<(usize, Level)> = None;
        let mut num: Option<(u32, Num)> = None;
        let mut override_lvl: Option<usize> = None;
        while let Ok(event) = reader.read_event() {
            let is_empty = matches!(event, Event::Empty(_));
            match event {
                Event::Start(e) | Event::Empty(e) => match e.local_name().as_ref() {
                    b"abstractNum" if !is_empty => {
                        let id = attr(&e, b"abstractNumId").unwrap_or_default();
                        abs = Some((id, AbstractNum { levels: vec![None; 9], num_style_link: None }));
                    }
                    b"num" if !is_empty => {
                        let id = attr(&e, b"numId").and_then(|v| v.parse().ok()).unwrap_or(0);
                        num = Some((id, Num::default()));
                    }
                    b"lvlOverride" if !is_empty => {
                        override_lvl = attr(&e, b"ilvl").and_then(|v| v.parse().ok());
                    }
                    b"lvl" if !is_empty && abs.is_some() && override_lvl.is_none() => {
                        let i = attr(&e, b"ilvl").and_then(|v| v.parse().ok()).unwrap_or(0usize);
                        lvl = Some((i, Level::default()));
                    }
                    b"start" => {
                        if let Some((_, l)) = lvl.as_mut() {
                            l.start = val(&e).and_then(|v| v.parse().ok()).unwrap_or(1);
                        }
                    }
                    b"numFmt" => {
                        if let Some((_, l)) = lvl.as_mut() {
                            l.fmt = val(&e).unwrap_or_else(|| "decimal".into());
                        }
                    }
                    b"lvlText" => {
                        if let Some((_, l)) = lvl.as_mut() {
                            l.text = val(&e);
                        }
                    }
                    b"pStyle" => {
                        if let Some((_, l)) = lvl.as_mut() {
                            l.pstyle = val(&e);
                        }
                    }
                    b"isLgl" => {
                        if let Some((_, l)) = lvl.as_mut() {
                            l.legal = on(&e);
                        }
                    }
                    b"lvlRestart" => {
                        if let Some((_, l)) = lvl.as_mut() {
                            l.restart = val(&e).and_then(|v| v.parse().ok());
                        }
                    }
                    b"numStyleLink" => {
                        if let Some((_, a)) = abs.as_mut() {
                            a.num_style_link = val(&e);
                        }
                    }
                    b"abstractNumId" => {
                        if let Some((_, nm)) = num.as_mut() {
                            nm.abstract_id = val(&e).unwrap_or_default();
                        }
                    }
                    b"startOverride" => {
                        if let (Some((_, nm)), Some(i)) = (num.as_mut(), override_lvl) {
                            if let Some(v) = val(&e).and_then(|v| v.parse().ok()) {
                                nm.overrides.push((i, v));
                            }
                        }
                    }
                    _ => {}
                },
                Event::End(e) => match e.local_name().as_ref() {
                    b"lvl" => {
                        if let (Some((i, l)), Some((_, a))) = (lvl.take(), abs.as_mut()) {
                            if i < 9 {
                                a.levels[i] = Some(l);
                            }
                        }
                    }
                    b"abstractNum" => {
                        if let Some((id, a)) = abs.take() {
                            n.abstracts.insert(id, a);
                        }
                    }
                    b"lvlOverride" => override_lvl = None,
                    b"num" => {
                        if let Some((id, nm)) = num.take() {
                            n.nums.insert(id, nm);
                        }
                    }
                    _ => {}
                },
                Event::Eof => break,
                _ => {}
            }
        }
        n
    }

    /// The abstract numbering behind a `numId`, following a numbering style link once or twice.
    pub(super) fn abstract_for(&self, num_id: u32, styles: &Styles) -> Option<(&str, &AbstractNum)> {
        let mut id = self.nums.get(&num_id)?.abstract_id.as_str();
        for _ in 0..4 {
            let a = self.abstracts.get(id)?;
            match &a.num_style_link {
                Some(link) if a.levels.iter().all(Option::is_none) => {
                    let linked = styles.defs.get(link)?.num_id?;
                    id = self.nums.get(&linked)?.abstract_id.as_str();
                }
                _ => return Some((id, a)),
            }
        }
        None
    }
}

/// A computed list label.
pub(super) struct NumLabel {
    pub(super) text: String,
    pub(super) bullet: bool,
}

/// Running counters, per abstract numbering as Word keeps them.
#[derive(Default)]
pub(super) struct Counters {
    pub(super) values: HashMap<String, [Option<i64>; 9]>,
    pub(super) start_override: HashMap<(String, usize), i64>,
    pub(super) applied: HashSet<u32>,
}

impl Counters {
    pub(super) fn next(
        &mut self,
        numbering: &Numbering,
        styles: &Styles,
        num_id: u32,
        ilvl: usize,
    ) -> Option<NumLabel> {
        let (abs_id, abs) = numbering.abstract_for(num_id, styles)?;
        let ilvl = ilvl.min(8);
        let level = abs.levels.get(ilvl)?.as_ref()?;
        let abs_id = abs_id.to_string();
        if self.applied.insert(num_id) {
            if let Some(num) = numbering.nums.get(&num_id) {
                for &(l, s) in &num.overrides {
                    if l < 9 {
                        self.start_override.insert((abs_id.clone(), l), s);
                        if let Some(c) = self.values.get_mut(&abs_id) {
                            c[l] = None;
                        }
                    }
                }
            }
        }
        let start_of = |this: &Self, l: usize| {
            this.start_override
                .get(&(abs_id.clone(), l))
                .copied()
                .unwrap_or_else(|| abs.levels[l].as_ref().map_or(1, |lv| lv.start))
        };
        let start = start_of(self, ilvl);
        let counters = self.values.entry(abs_id.clone()).or_insert([None; 9]);
        counters[ilvl] = Some(counters[ilvl].map_or(start, |c| c.saturating_add(1)));
        for (l, slot) in counters.iter_mut().enumerate().skip(ilvl + 1) {
            let restart = abs.levels[l].as_ref().and_then(|lv| lv.restart);
            if restart.is_none_or(|r| r != 0 && (ilvl as u8) < r) {
                *slot = None;
            }
        }
        let counters = *counters;
        if level.fmt == "bullet" {
            return Some(NumLabel { text: bullet_marker(level.text.as_deref().unwrap_or("")), bullet: true });
        }
        let template = level.text.as_deref().unwrap_or("");
        let mut out = String::new();
        let mut chars = template.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '%' {
                if let Some(d) = chars.peek().and_then(|d| d.to_digit(10)).filter(|d| (1..=9).contains(d)) {
                    chars.next();
                    let k = d as usize - 1;
                    let value = counters[k].unwrap_or_else(|| start_of(self, k));
                    let fmt = if level.legal {
                        "decimal"
                    } else {
                        abs.levels[k].as_ref().map_or("decimal", |lv| lv.fmt.as_str())
                    };
                    out.push_str(&format_number(value, fmt));
                    continue;
                }
            }
            out.push(c);
        }
        let text = out.trim().to_string();
        (!text.is_empty()).then_some(NumLabel { text, bullet: false })
    }
}

/// A printable bullet: symbol-font (private-use) glyphs mapped to their Unicode look-alikes.
pub(super) fn bullet_marker(text: &str) -> String {
    let t = text.trim();
    match t {
        "" => "•".into(),
        "o" => "◦".into(),
        "\u{f0a7}" => "▪".into(),
        "\u{f0d8}" => "➢".into(),
        "\u{f0fc}" => "✓".into(),
        "\u{f076}" => "❖".into(),
        _ if t.chars().any(|c| ('\u{e000}'..='\u{f8ff}').contains(&c)) => "•".into(),
        _ => t.to_string(),
    }
}
