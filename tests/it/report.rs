//! `timeshare report`: the HTML file of a stored run, read back with an HTML parser (every
//! chart has its data table, every row of the run appears, run strings stay text), and
//! opened in headless Chromium where it is installed.

use std::path::{Path, PathBuf};

use scraper::{Html, Selector};

use crate::common::{store_with, timeshare, FIXTURE};

fn sel(s: &str) -> Selector {
    Selector::parse(s).unwrap()
}

/// `report ARGS… --db` of the store in `dir`, writing `dir/<file>`; the parsed page.
fn report(dir: &Path, args: &[&str], file: &str) -> (Html, String) {
    let out = dir.join(file);
    timeshare()
        .arg("report")
        .args(args)
        .arg("--db")
        .arg(dir.join("runs.db"))
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    (Html::parse_document(&text), text)
}

/// Every chart is in a figure with the table of its numbers, and every figure with a
/// chart has one.
fn every_chart_has_its_table(page: &Html) -> usize {
    let svgs = page.select(&sel("svg")).count();
    let mut charted = 0;
    for fig in page.select(&sel("figure.chart")) {
        let n = fig.select(&sel("svg")).count();
        let tables = fig.select(&sel("table.data")).count();
        assert_eq!(tables, 1, "a chart figure without its data table");
        if n > 0 {
            let rows = fig.select(&sel("table.data tbody tr")).count();
            assert!(rows > 0, "a chart's data table is empty");
        }
        charted += n;
    }
    assert_eq!(svgs, charted, "an svg outside a chart figure");
    svgs
}

fn ids_of(path: &str) -> Vec<String> {
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_full_run_has_every_row_and_every_chart_with_its_table() {
    let dir = store_with(FIXTURE.as_ref());
    let (page, text) = report(dir.path(), &["1"], "r.html");
    let svgs = every_chart_has_its_table(&page);
    assert!(svgs >= 15, "only {svgs} charts");
    // Every row of the run, in a family table's first column.
    let cells: Vec<String> = page
        .select(&sel("table.family tbody tr td:first-child"))
        .map(|td| td.text().collect())
        .collect();
    for id in ids_of(FIXTURE) {
        assert!(cells.contains(&id), "{id} not in the report");
    }
    for heading in [
        "Memory hierarchy (seed 000 Table 4)",
        "Paging against locality (seed 001 Tables 6–8)",
        "Response time against load (seed 000 Table 9)",
        "Environment",
    ] {
        assert!(
            page.select(&sel("h2, h3"))
                .any(|h| h.text().collect::<String>() == heading),
            "no section {heading}"
        );
    }
    // Self-contained: no script, nothing fetched.
    assert_eq!(page.select(&sel("script, link, img, iframe")).count(), 0);
    assert!(
        !text.contains("http://")
            || !text
                .replace("http://www.w3.org/2000/svg", "")
                .contains("http://")
    );
    assert!(!text.contains("https://"));
    assert!(text.len() < 5 << 20, "{} bytes", text.len());
}

#[test]
fn strings_from_a_run_show_as_text() {
    let mut run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap();
    let label = "<script>alert(1)</script>";
    let host = "\"><img src=x onerror=alert(1)>";
    run["options"]["label"] = label.into();
    run["environment"]["hostname"] = host.into();
    run["results"][3]["notes"] = serde_json::json!(["\u{1b}[31mred\u{1b}[0m"]);
    run["results"][4]["status"] = serde_json::json!({"state": "failed", "error": "<b>boom</b>"});
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("evil.json");
    std::fs::write(&file, serde_json::to_string(&run).unwrap()).unwrap();
    let dir = store_with(&file);
    let (page, text) = report(dir.path(), &["1"], "r.html");
    assert_eq!(
        page.select(&sel("script, img, b")).count(),
        0,
        "markup from the run was parsed"
    );
    let all: String = page.root_element().text().collect();
    for shown in [label, host, "␛[31mred␛[0m", "FAILED: <b>boom</b>"] {
        assert!(all.contains(shown), "{shown:?} not shown as text");
    }
    assert!(!text.contains('\u{1b}'));
}

#[test]
fn an_existing_file_is_refused_without_force() {
    let dir = store_with(FIXTURE.as_ref());
    let db = dir.path().join("runs.db");
    // The default name, in the current directory.
    timeshare()
        .current_dir(dir.path())
        .args(["report", "last", "--db"])
        .arg(&db)
        .assert()
        .success();
    let default = dir.path().join("timeshare-run-1.html");
    assert!(default.is_file());
    std::fs::write(&default, "mine").unwrap();
    let out = timeshare()
        .current_dir(dir.path())
        .args(["report", "1", "--db"])
        .arg(&db)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&default).unwrap(), "mine");
    timeshare()
        .current_dir(dir.path())
        .args(["report", "1", "--force", "--db"])
        .arg(&db)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&default)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
}

#[test]
fn runs_and_a_machine_side_by_side_have_verdicts() {
    let dir = store_with(FIXTURE.as_ref());
    let (page, _) = report(dir.path(), &["1", "vax750-4.3bsd"], "c.html");
    every_chart_has_its_table(&page);
    let verdicts: Vec<String> = page
        .select(&sel("td.faster, td.slower"))
        .map(|t| t.text().collect())
        .collect();
    assert!(
        verdicts.iter().any(|v| v.starts_with("today")),
        "{verdicts:?}"
    );
    assert!(page
        .select(&sel("h2"))
        .any(|h| h.text().collect::<String>() == "Comparison with run 1"));
}

#[test]
fn the_exerciser_sweep_is_drawn_from_its_json() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/exercise-sweep.json"
    );
    let out = tmp.path().join("s.html");
    timeshare()
        .args(["report", sweep, "-o"])
        .arg(&out)
        .arg("--db")
        .arg(tmp.path().join("none.db"))
        .assert()
        .success();
    let page = Html::parse_document(&std::fs::read_to_string(&out).unwrap());
    every_chart_has_its_table(&page);
    let titles: Vec<String> = page
        .select(&sel("svg > title"))
        .map(|t| t.text().collect())
        .collect();
    for what in ["real time", "user time", "system time"] {
        assert!(
            titles
                .iter()
                .any(|t| t == &format!("exercise: {what} per process against processes")),
            "{titles:?}"
        );
    }
}

#[test]
fn trend_draws_an_id_across_runs() {
    let dir = store_with(FIXTURE.as_ref());
    let (page, _) = report(dir.path(), &["--trend", "syscall.getpid"], "t.html");
    assert_eq!(every_chart_has_its_table(&page), 1);
    timeshare()
        .args(["report", "--trend", "no.such.id", "--db"])
        .arg(dir.path().join("runs.db"))
        .arg("-o")
        .arg(dir.path().join("x.html"))
        .assert()
        .code(2);
}

/// Chromium's path; `None`, said on standard error, when it is not installed, which fails
/// the calling test under CI (`CI` set) only.
fn chromium_or_skip() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser"].into_iter().find_map(which);
    if found.is_none() {
        let why = "chromium is not installed (apt-get install chromium): browser test skipped";
        assert!(std::env::var_os("CI").is_none(), "{why}");
        eprintln!("{why}");
    }
    found
}

/// Headless Chromium opens the report from file://, and its screenshot is not blank.
/// Without Chromium the test says so and passes only outside CI (`CI` set: it fails).
#[test]
fn chromium_draws_the_report() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let dir = store_with(FIXTURE.as_ref());
    let (_, _) = report(dir.path(), &["1"], "r.html");
    let html = dir.path().join("r.html");
    let png = dir.path().join("shot.png");
    let out = std::process::Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1200,1600",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", html.display()))
        .env("HOME", dir.path())
        .output()
        .expect("chromium runs");
    assert!(
        png.is_file(),
        "no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let bytes = &buf[..info.buffer_size()];
    let n = bytes.len() as f64;
    let mean = bytes.iter().map(|&b| b as f64).sum::<f64>() / n;
    let var = bytes
        .iter()
        .map(|&b| (b as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    assert!(
        info.width >= 800 && info.height >= 800,
        "{}×{}",
        info.width,
        info.height
    );
    // A blank page is one colour: variance 0. Text and charts on white give hundreds.
    assert!(
        var > 100.0,
        "the screenshot looks blank (variance {var:.1})"
    );
}

/// The default report of a quick run (the fixture's 222 rows, with the papers' machines the
/// report adds) laid out by Chromium in a window of 1280 × 800: the page is at most 15,000
/// px tall, and its first screen holds the summary, the contents and the start of the
/// seeds' charts, the environment far below. The page's own heights are read by a line of
/// script added to a copy (the report itself has none) and printed with the DOM.
#[test]
fn the_default_report_of_a_quick_run_opens_on_its_summary_and_charts_within_15000_px() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let dir = store_with(FIXTURE.as_ref());
    let (_, text) = report(dir.path(), &["1"], "r.html");
    assert!(!text.contains("<script"), "the report carries a script");
    let measure = "<script>const at = id => document.getElementById(id)\
        .getBoundingClientRect().top + window.scrollY; document.title = 'H=' + \
        document.documentElement.scrollHeight + ' S=' + at('run-1') + ' C=' + \
        at('charts-run-1') + ' E=' + at('environment') + ';'</script></body>";
    let measured = dir.path().join("measured.html");
    std::fs::write(&measured, text.replace("</body>", measure)).unwrap();
    let out = std::process::Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1280,800",
            "--dump-dom",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg(format!("file://{}", measured.display()))
        .env("HOME", dir.path())
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    // The page's title as the script left it (the script's own text holds "H=" too).
    let dom = dom
        .split("<title>")
        .nth(1)
        .and_then(|t| t.split("</title>").next())
        .unwrap_or_default();
    let figure = |key: &str| -> f64 {
        let at = dom.find(&format!("{key}=")).unwrap_or_else(|| {
            panic!(
                "no {key}= in the title: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        let rest = &dom[at + key.len() + 1..];
        let end = rest.find([' ', ';']).unwrap_or(rest.len());
        rest[..end]
            .parse()
            .unwrap_or_else(|e| panic!("{key}={}: {e}", &rest[..end]))
    };
    let (height, summary, charts, environment) =
        (figure("H"), figure("S"), figure("C"), figure("E"));
    assert!(height <= 15_000.0, "the page is {height} px tall");
    assert!(
        summary < 800.0 && charts < 800.0,
        "the summary at {summary} px and the charts at {charts} px: not on the first screen"
    );
    assert!(
        environment > 4.0 * 800.0 && environment < height,
        "the environment at {environment} px of {height}"
    );
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(name))
            .find(|p| p.is_file())
    })
}
