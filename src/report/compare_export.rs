//! A comparison's verdicts as CSV and Markdown (JSON is `compare --format json`), and the
//! writers every export of verdicts shares ([`csv_table`], [`markdown_table`]): one line
//! per later column and id, with both figures as stored (SI units), their intervals, the
//! ratio and its range, the verdict's word and its whole text (the test that decided it).

use super::compare::{Judgement, SideFigure};

const HEADER: [&str; 15] = [
    "column",
    "id",
    "unit",
    "baseline",
    "baseline_ci_low",
    "baseline_ci_high",
    "other",
    "other_ci_low",
    "other_ci_high",
    "other_unit",
    "ratio",
    "ratio_low",
    "ratio_high",
    "verdict",
    "verdict_text",
];

/// The verdict's short word for a program: "faster", "slower", "no change", "not
/// comparable", "historical" (today beside a machine of the papers), "no verdict" (not
/// resolved, too few samples: the text says why) or "none" (a side without a figure).
pub fn verdict_word(verdict: &str) -> &'static str {
    if verdict.starts_with("slower") {
        "slower"
    } else if verdict.starts_with("faster") {
        "faster"
    } else if verdict.starts_with("no significant change") {
        "no change"
    } else if verdict.starts_with("not comparable") {
        "not comparable"
    } else if verdict.is_empty() {
        "none"
    } else if verdict.starts_with("today") {
        "historical"
    } else {
        "no verdict"
    }
}

/// The cells of one judged id: numbers as `{:e}` (exact, as `export --format csv`
/// writes them), empty where a side has no figure.
fn cells(column: &str, j: &Judgement) -> [String; 15] {
    let num = |v: Option<f64>| v.map(|v| format!("{v:e}")).unwrap_or_default();
    let side = |f: &Option<SideFigure>| {
        [
            num(f.map(|f| f.value)),
            num(f.and_then(|f| f.interval).map(|i| i.0)),
            num(f.and_then(|f| f.interval).map(|i| i.1)),
        ]
    };
    let unit = |f: &Option<SideFigure>| f.map(|f| f.unit.symbol()).unwrap_or("").to_string();
    let [b, bl, bh] = side(&j.first_figure);
    let [o, ol, oh] = side(&j.other_figure);
    [
        column.to_string(),
        j.id.clone(),
        unit(&j.first_figure),
        b,
        bl,
        bh,
        o,
        ol,
        oh,
        unit(&j.other_figure),
        num(j.ratio),
        num(j.ratio_range.map(|r| r.0)),
        num(j.ratio_range.map(|r| r.1)),
        verdict_word(&j.verdict).to_string(),
        j.verdict.clone(),
    ]
}

/// The verdicts as CSV, a header line first.
pub fn to_csv(judged: &[(String, Vec<Judgement>)]) -> anyhow::Result<Vec<u8>> {
    csv_table(&HEADER, &lines(judged), &[0, 1, 14])
}

/// The verdicts as one Markdown table.
pub fn to_markdown(judged: &[(String, Vec<Judgement>)]) -> String {
    markdown_table(&HEADER, &lines(judged))
}

/// The cells of every judged id, column after column.
fn lines(judged: &[(String, Vec<Judgement>)]) -> Vec<Vec<String>> {
    judged
        .iter()
        .flat_map(|(column, rows)| rows.iter().map(move |j| cells(column, j).to_vec()))
        .collect()
}

/// `rows` under `header` as CSV; the cells of the `text` columns (names, free text) are
/// written so that a spreadsheet does not take them for formulas. For every export of
/// verdicts (`compare`, `ab`, `crosscheck`).
pub fn csv_table(header: &[&str], rows: &[Vec<String>], text: &[usize]) -> anyhow::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header)?;
    for row in rows {
        let mut c = row.clone();
        for &i in text {
            if let Some(cell) = c.get_mut(i) {
                *cell = super::csv::text(cell);
            }
        }
        w.write_record(&c)?;
    }
    Ok(w.into_inner()?)
}

/// `rows` under `header` as one Markdown table, every cell escaped.
pub fn markdown_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = format!("| {} |\n", header.join(" | "));
    out.push_str(&format!("|{}\n", "---|".repeat(header.len())));
    for row in rows {
        let c: Vec<String> = row.iter().map(|c| super::markdown::escape(c)).collect();
        out.push_str(&format!("| {} |\n", c.join(" | ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::unit::Unit;

    fn judged() -> Vec<(String, Vec<Judgement>)> {
        let fig = |v: f64| SideFigure {
            value: v,
            unit: Unit::SecondsPerOp,
            interval: Some((v * 0.9, v * 1.1)),
        };
        vec![(
            "run 2".into(),
            vec![
                Judgement {
                    id: "syscall.getpid".into(),
                    first: "100 ns".into(),
                    other: "120 ns".into(),
                    ratio: Some(1.2),
                    ratio_range: Some((1.1, 1.3)),
                    verdict: "slower (p = 0.001, Mann–Whitney U)".into(),
                    first_figure: Some(fig(1e-7)),
                    other_figure: Some(fig(1.2e-7)),
                },
                Judgement {
                    id: "=pipe|x".into(),
                    first: "1 µs".into(),
                    other: "—".into(),
                    ratio: None,
                    ratio_range: None,
                    verdict: String::new(),
                    first_figure: Some(fig(1e-6)),
                    other_figure: None,
                },
            ],
        )]
    }

    #[test]
    fn csv_has_every_figure_and_the_verdict_and_parses_back() {
        let bytes = to_csv(&judged()).unwrap();
        let mut r = csv::Reader::from_reader(bytes.as_slice());
        assert_eq!(r.headers().unwrap().len(), HEADER.len());
        let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(&rows[0][1], "syscall.getpid");
        assert_eq!(rows[0][3].parse::<f64>().unwrap(), 1e-7);
        assert_eq!(rows[0][6].parse::<f64>().unwrap(), 1.2e-7);
        assert_eq!(rows[0][7].parse::<f64>().unwrap(), 1.2e-7 * 0.9);
        assert_eq!(&rows[0][13], "slower");
        assert!(rows[0][14].contains("Mann–Whitney"));
        assert_eq!(&rows[1][1], "'=pipe|x", "a formula is written as text");
        assert_eq!(&rows[1][6], "", "no figure, no number");
        assert_eq!(&rows[1][13], "none");
    }

    #[test]
    fn markdown_is_one_table_with_a_row_per_id() {
        let md = to_markdown(&judged());
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), 4, "{md}");
        for l in lines.iter().filter(|l| !l.starts_with("|---")) {
            assert_eq!(l.matches(" | ").count(), HEADER.len() - 1, "{l}");
        }
        assert!(lines[3].contains("=pipe\\|x"), "{md}");
        assert!(lines[2].contains("| slower |"), "{md}");
    }
}
