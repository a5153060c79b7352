//! The SVG form of `explain`, in the spirit of the "Tiled layout" doc's Figure 1: the logical
//! array coloured by tile, and beneath it memory in linear order, each slot coloured by the
//! tile of the element it holds and padding left blank.
//!
//! The SVG is written by hand: integer coordinates and a fixed element order keep the output
//! byte-for-byte deterministic.

use std::fmt::Write as _;

use hlo_layout::ir::{ArrayShape, PhysicalLayout};

use super::picture::{dim_names, join, tile_ordinal, Grid, MemoryStrip, Slice};

/// At most this many memory slots are drawn.
pub const MAX_MEMORY_SLOTS: i64 = 256;
const SLOTS_PER_ROW: usize = 16;

const MARGIN: i64 = 16;
const CELL_HEIGHT: i64 = 24;
const MIN_CELL_WIDTH: i64 = 28;
/// Width of one character of a `size`-pixel monospace font, rounded up: common monospace
/// fonts advance about 0.6 em per character.
fn char_width(size: i64) -> i64 {
    (size * 62 + 99) / 100
}
const LINE_HEIGHT: i64 = 18;
const SLICE_GAP: i64 = 12;

/// Everything the drawing is made from.
pub struct Drawing<'a> {
    pub shape: &'a ArrayShape,
    pub memory: &'a PhysicalLayout,
    pub grid: &'a Grid,
    pub strip: &'a MemoryStrip,
    /// The `--index` element's linear index, outlined in the memory strip.
    pub marked_linear: Option<i64>,
}

/// SVG body text plus the extent drawn so far.
struct Canvas {
    body: String,
    width: i64,
    height: i64,
}

impl Canvas {
    fn grow(&mut self, x: i64, y: i64) {
        self.width = self.width.max(x);
        self.height = self.height.max(y);
    }

    fn text(&mut self, x: i64, y: i64, size: i64, anchor: &str, content: &str) {
        let extent = char_width(size) * content.chars().count() as i64;
        let right = match anchor {
            "end" => x,
            "middle" => x + extent / 2,
            _ => x + extent,
        };
        self.grow(right, y + size / 3);
        let _ = writeln!(
            self.body,
            r#"<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}">{}</text>"#,
            escape(content)
        );
    }

    fn cell(&mut self, x: i64, y: i64, width: i64, fill: &str, title: &str) {
        self.grow(x + width, y + CELL_HEIGHT);
        let _ = writeln!(
            self.body,
            r##"<rect x="{x}" y="{y}" width="{width}" height="{CELL_HEIGHT}" fill="{fill}" stroke="#999999" stroke-width="0.5"><title>{}</title></rect>"##,
            escape(title)
        );
    }

    fn outline(&mut self, x: i64, y: i64, width: i64) {
        let _ = writeln!(
            self.body,
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#d62728" stroke-width="3"/>"##,
            x + 2,
            y + 2,
            width - 4,
            CELL_HEIGHT - 4
        );
    }

    fn border(&mut self, x1: i64, y1: i64, x2: i64, y2: i64) {
        let _ = writeln!(
            self.body,
            r##"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#000000" stroke-width="2.5" stroke-linecap="square"/>"##
        );
    }
}

/// A colour per tile: hues a golden angle apart, so neighbouring tiles look different.
fn tile_colour(memory: &PhysicalLayout, tile: &[i64]) -> String {
    let hue = tile_ordinal(memory, tile).rem_euclid(360) * 137 % 360;
    format!("hsl({hue},70%,80%)")
}

fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            _ => escaped.push(c),
        }
    }
    escaped
}

pub fn render(drawing: &Drawing<'_>) -> String {
    let memory = drawing.memory;
    let grid = drawing.grid;
    let names = dim_names(memory.logical_dims().len());
    let mut canvas = Canvas {
        body: String::new(),
        width: 0,
        height: 0,
    };
    let mut y = MARGIN + 14;
    canvas.text(MARGIN, y, 14, "start", &drawing.shape.to_string());
    y += LINE_HEIGHT;
    let tiles = match memory.layout().tiles.first() {
        Some(first) => format!("colour = T{first} tile, thick lines = its borders"),
        None => "no tiles".to_string(),
    };
    canvas.text(
        MARGIN,
        y,
        11,
        "start",
        &format!("logical array, linear index in each cell; {tiles}"),
    );
    y += LINE_HEIGHT / 2;

    let digits = grid.max_linear().to_string().len() as i64;
    let cell_width = MIN_CELL_WIDTH.max(char_width(12) * digits + 12);
    let header = match (grid.row_dim, grid.col_dim) {
        (Some(row), Some(col)) => format!("{}\\{}", names[row], names[col]),
        (None, Some(col)) => names[col].clone(),
        _ => String::new(),
    };
    let label_chars = grid.rows.last().to_string().len().max(header.len());
    let label_width = char_width(12) * label_chars as i64 + 8;
    let left = MARGIN + label_width;
    let leading_rank = names.len().saturating_sub(2);
    for slice in &grid.slices {
        y += SLICE_GAP;
        if leading_rank > 0 {
            let coordinates: Vec<String> = names
                .iter()
                .zip(&slice.leading)
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            y += LINE_HEIGHT;
            canvas.text(
                MARGIN,
                y,
                12,
                "start",
                &format!("slice {}", coordinates.join(" ")),
            );
        }
        y += LINE_HEIGHT;
        if grid.col_dim.is_some() {
            canvas.text(left - 6, y, 12, "end", &header);
            for (i, col) in grid.cols.coordinates().enumerate() {
                let x = left + i as i64 * cell_width + cell_width / 2;
                canvas.text(x, y, 12, "middle", &col.to_string());
            }
        }
        y += 6;
        draw_slice(&mut canvas, drawing, slice, left, y, cell_width);
        y += slice.cells.len() as i64 * CELL_HEIGHT;
    }
    if grid.slices.is_empty() {
        y += LINE_HEIGHT;
        canvas.text(MARGIN, y, 12, "start", "(no elements: a dim has size 0)");
    }

    y += LINE_HEIGHT + SLICE_GAP;
    canvas.text(
        MARGIN,
        y,
        11,
        "start",
        "memory in linear order: each slot coloured by the tile of the element it holds; blank = padding",
    );
    y += 6;
    y = draw_strip(&mut canvas, drawing, y);

    for note in cut_notes(grid, drawing.strip, &names) {
        y += LINE_HEIGHT;
        canvas.text(MARGIN, y, 11, "start", &note);
    }

    let width = canvas.width + MARGIN;
    let height = canvas.height.max(y) + MARGIN;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace">"#
    );
    let _ = writeln!(
        svg,
        r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    svg.push_str(&canvas.body);
    svg.push_str("</svg>\n");
    svg
}

fn draw_slice(
    canvas: &mut Canvas,
    drawing: &Drawing<'_>,
    slice: &Slice,
    left: i64,
    top: i64,
    cell_width: i64,
) {
    let grid = drawing.grid;
    for (r, cells) in slice.cells.iter().enumerate() {
        let y = top + r as i64 * CELL_HEIGHT;
        if grid.row_dim.is_some() {
            let label = (grid.rows.start + r as i64).to_string();
            canvas.text(left - 6, y + 16, 12, "end", &label);
        }
        for (c, cell) in cells.iter().enumerate() {
            let x = left + c as i64 * cell_width;
            let title = format!(
                "element ({}) at linear index {}",
                join(&cell.index, ","),
                cell.linear
            );
            canvas.cell(
                x,
                y,
                cell_width,
                &tile_colour(drawing.memory, &cell.tile),
                &title,
            );
            canvas.text(
                x + cell_width / 2,
                y + 16,
                12,
                "middle",
                &cell.linear.to_string(),
            );
        }
    }
    // Borders go on top of every cell so that no fill hides them.
    let rows = slice.cells.len();
    let cols = slice.cells.first().map_or(0, Vec::len);
    for r in 0..rows {
        for c in 0..=cols {
            if slice.vertical_border(r, c) {
                let x = left + c as i64 * cell_width;
                let y = top + r as i64 * CELL_HEIGHT;
                canvas.border(x, y, x, y + CELL_HEIGHT);
            }
        }
    }
    for r in 0..=rows {
        for c in 0..cols {
            if slice.horizontal_border(r, c) {
                let x = left + c as i64 * cell_width;
                let y = top + r as i64 * CELL_HEIGHT;
                canvas.border(x, y, x + cell_width, y);
            }
        }
    }
    for (r, cells) in slice.cells.iter().enumerate() {
        for (c, cell) in cells.iter().enumerate() {
            if cell.marked {
                let x = left + c as i64 * cell_width;
                canvas.outline(x, top + r as i64 * CELL_HEIGHT, cell_width);
            }
        }
    }
}

/// Draws the memory strip in rows of [`SLOTS_PER_ROW`] slots; returns the y below it.
fn draw_strip(canvas: &mut Canvas, drawing: &Drawing<'_>, top: i64) -> i64 {
    let strip = drawing.strip;
    let labels: Vec<String> = strip
        .slots
        .iter()
        .map(|slot| {
            slot.as_deref()
                .map(|index| join(index, ","))
                .unwrap_or_default()
        })
        .collect();
    let longest = labels.iter().map(String::len).max().unwrap_or(0) as i64;
    let slot_width = MIN_CELL_WIDTH.max(char_width(10) * longest + 10);
    let offset_width = char_width(12) * strip.window.last().to_string().len() as i64 + 8;
    let left = MARGIN + offset_width;
    let mut y = top;
    for (row, chunk) in strip.slots.chunks(SLOTS_PER_ROW).enumerate() {
        let first = strip.window.start + (row * SLOTS_PER_ROW) as i64;
        canvas.text(left - 6, y + 16, 12, "end", &first.to_string());
        for (i, slot) in chunk.iter().enumerate() {
            let linear = first + i as i64;
            let x = left + i as i64 * slot_width;
            match slot {
                Some(index) => {
                    let tile = drawing
                        .memory
                        .trace(index)
                        .ok()
                        .and_then(|traces| traces.into_iter().next())
                        .map(|first| first.tile_index)
                        .unwrap_or_default();
                    let title =
                        format!("linear index {linear} holds element ({})", join(index, ","));
                    canvas.cell(
                        x,
                        y,
                        slot_width,
                        &tile_colour(drawing.memory, &tile),
                        &title,
                    );
                    canvas.text(
                        x + slot_width / 2,
                        y + 15,
                        10,
                        "middle",
                        &labels[row * SLOTS_PER_ROW + i],
                    );
                }
                None => {
                    let title = format!("linear index {linear} is padding");
                    canvas.cell(x, y, slot_width, "#ffffff", &title);
                }
            }
            if drawing.marked_linear == Some(linear) {
                canvas.outline(x, y, slot_width);
            }
        }
        y += CELL_HEIGHT;
    }
    y
}

fn cut_notes(grid: &Grid, strip: &MemoryStrip, names: &[String]) -> Vec<String> {
    let mut notes: Vec<String> = grid
        .cut_windows(names)
        .into_iter()
        .map(|cut| format!("showing {cut}"))
        .collect();
    let drawn_slices = i64::try_from(grid.slices.len()).unwrap_or(i64::MAX);
    if drawn_slices < grid.total_slices {
        notes.push(format!(
            "showing {drawn_slices} of {} slices",
            grid.total_slices
        ));
    }
    if strip.window.is_cut() {
        notes.push(format!(
            "showing memory slots {}..{} of 0..{}",
            strip.window.start,
            strip.window.last(),
            strip.window.size - 1
        ));
    }
    notes
}
