//! A flame graph drawn as inline SVG from folded stacks (`comm;outer;…;leaf count`): no
//! script, so each frame carries a `<title>` (its name, samples and share) that a browser
//! shows on hover, and a frame's name is written in it only where it fits whole, never cut.

use std::collections::BTreeMap;

use maud::{html, Markup};

/// The drawing's width in pixels: the page's column.
const WIDTH: f64 = 1060.0;
/// One frame's height.
const ROW: f64 = 17.0;
/// An estimate of one character's width at the frames' 11 px font, generous so a name
/// that is written is never clipped by its frame.
const CHAR: f64 = 6.8;
/// Frames narrower than this are left out (they could not be seen nor hovered); their
/// samples still count in their parents' widths.
const NARROWEST: f64 = 0.5;

/// A frame and its callees, with the samples under it.
#[derive(Default)]
struct Node {
    count: u64,
    children: BTreeMap<String, Node>,
}

impl Node {
    fn add(&mut self, path: &[&str], count: u64) {
        self.count += count;
        if let Some((first, rest)) = path.split_first() {
            self.children
                .entry((*first).to_string())
                .or_default()
                .add(rest, count);
        }
    }

    fn depth(&self) -> usize {
        1 + self.children.values().map(Node::depth).max().unwrap_or(0)
    }
}

/// One drawn frame.
struct Frame<'a> {
    name: &'a str,
    count: u64,
    depth: usize,
    x: f64,
    width: f64,
}

/// The flame graph of `folded` (stack, samples), callers below their callees; `None` when
/// there is no sample.
pub fn svg(title: &str, folded: &[(&str, u64)]) -> Option<Markup> {
    let mut root = Node::default();
    for (stack, count) in folded {
        let path: Vec<&str> = stack.split(';').filter(|s| !s.is_empty()).collect();
        root.add(&path, *count);
    }
    if root.count == 0 {
        return None;
    }
    let mut frames = Vec::new();
    lay_out(&root, 0, 0.0, WIDTH / root.count as f64, &mut frames);
    let levels = root.depth() - 1;
    let top = 24.0;
    let height = top + levels as f64 * ROW + 4.0;
    let total = root.count as f64;
    Some(html! {
        svg.flame xmlns="http://www.w3.org/2000/svg" width=(WIDTH) height=(height)
            viewBox=(format!("0 0 {WIDTH} {height}")) role="img" {
            title { (title) }
            text.t x="0" y="15" { (title) }
            @for f in &frames {
                @let y = top + (levels - 1 - f.depth) as f64 * ROW;
                g {
                    title { (format!("{} ({} samples, {:.1}%)", f.name, f.count, 100.0 * f.count as f64 / total)) }
                    rect x=(format!("{:.1}", f.x)) y=(y) width=(format!("{:.1}", f.width)) height=(ROW - 1.0)
                        fill=(colour(f.name)) {}
                    @if fits(f.name, f.width) {
                        text.fn x=(format!("{:.1}", f.x + 3.0)) y=(y + ROW - 5.0) { (f.name) }
                    }
                }
            }
        }
    })
}

/// Frames depth first, each child from its parent's left edge, widest share first.
fn lay_out<'a>(node: &'a Node, depth: usize, x: f64, per: f64, out: &mut Vec<Frame<'a>>) {
    let mut at = x;
    let mut children: Vec<(&String, &Node)> = node.children.iter().collect();
    children.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
    for (name, child) in children {
        let width = child.count as f64 * per;
        if width >= NARROWEST {
            out.push(Frame {
                name,
                count: child.count,
                depth,
                x: at,
                width,
            });
            lay_out(child, depth + 1, at, per, out);
        }
        at += width;
    }
}

/// Whether `name` can be written whole inside a frame `width` wide.
fn fits(name: &str, width: f64) -> bool {
    name.chars().count() as f64 * CHAR + 6.0 <= width
}

/// A warm colour that depends only on the name, so a function keeps its colour from one
/// observation to the next.
fn colour(name: &str) -> String {
    let h = name
        .bytes()
        .fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    let red = 205 + (h % 50);
    let green = 90 + ((h >> 8) % 130);
    let blue = 40 + ((h >> 16) % 40);
    format!("rgb({red},{green},{blue})")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(folded: &[(&str, u64)]) -> String {
        svg("t", folded).expect("a drawing").into_string()
    }

    #[test]
    fn every_frame_has_a_title_and_widths_follow_the_samples() {
        let s = drawn(&[("cat;read;vfs_read", 3), ("cat;write", 1)]);
        // root frame cat, then read, vfs_read, write: four frames, four titles + the
        // drawing's own.
        assert_eq!(s.matches("<title>").count(), 5, "{s}");
        assert!(s.contains("<title>cat (4 samples, 100.0%)</title>"), "{s}");
        assert!(s.contains("<title>write (1 samples, 25.0%)</title>"), "{s}");
        assert!(
            s.contains(r#"width="795.0""#),
            "read is 3/4 of {WIDTH}: {s}"
        );
        assert!(!s.contains("<script"));
    }

    #[test]
    fn a_name_too_long_for_its_frame_is_not_written_but_kept_in_its_title() {
        let long = "a_very_long_kernel_function_name_that_cannot_fit";
        let stack = format!("cmd;{long}");
        let s = drawn(&[(stack.as_str(), 1), ("cmd;other", 999)]);
        assert!(s.contains(&format!("<title>{long} (1 samples")), "{s}");
        assert!(!s.contains(&format!(">{long}</text>")), "{s}");
        assert!(s.contains(">other</text>"), "{s}");
    }

    #[test]
    fn names_are_escaped_and_no_sample_draws_nothing() {
        let s = drawn(&[("<b>&;x", 2)]);
        assert!(s.contains("&lt;b&gt;&amp;"), "{s}");
        assert!(svg("t", &[("a;b", 0)]).is_none());
        assert!(svg("t", &[]).is_none());
    }
}
