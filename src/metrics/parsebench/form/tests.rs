use super::*;

fn rule(label: &str, value: Value, value_type: &str) -> FormField {
    let v = serde_json::json!({"label": label, "value": value, "value_type": value_type});
    FormField::from_fields(v.as_object().unwrap()).unwrap()
}

fn text(md: &str, label: &str) -> Option<String> {
    text_value_for_label(md, label, None)
}

#[test]
fn label_scores_take_the_best_of_ratio_partial_ratio_and_punctuation_free_equality() {
    assert_eq!(label_match_score("Country", "country"), 1.0);
    // "county" vs "country": Indel distance 1 over 13 characters.
    assert!((label_match_score("County", "Country") - 12.0 / 13.0).abs() < 1e-12);
    // "api no. (if available)" holds "api no." whole: partial 1.0 less the 0.05 penalty.
    assert!((label_match_score("API NO. (if available)", "API NO.") - 0.95).abs() < 1e-12);
    // "k.b." and "kb": ratio 2*2/6 = 0.67, but equal without dots.
    assert_eq!(label_match_score("K.B.", "KB"), 1.0);
    assert_eq!(label_match_score("Name", "Date"), 0.0);
    assert_eq!(label_match_score("", "Date"), 0.0);
}

#[test]
fn values_match_after_normalizing_as_numbers_and_without_struck_out_text() {
    assert!(values_match_text("  MADISON ", "madison"));
    assert!(values_match_text("$1,234.00", "1234"));
    assert!(!values_match_text("53703", "53704"));
    assert!(values_match_text("~~old~~ new", "new"));
    assert!(values_match_text("", ""));
    assert!(!values_match_text("x", ""));
}

#[test]
fn bold_colon_pairs_split_lines_join_connectors_and_bullets() {
    let md = "**Name:** Jane **Date**: 2024-01-05\n**Depth**: 105 **to** 15437\n\
              **Mail To**:\n- 1 Main St\n- Austin TX\n\n**A:** x | B: y";
    assert_eq!(
        pairs::bold_colon_pairs(md),
        [
            ("Name", "Jane"),
            ("Date", "2024-01-05"),
            ("Depth", "105 to 15437"),
            // The connector is a bold label of its own too, as the evaluator's scan has it.
            ("to", "15437"),
            ("Mail To", "1 Main St, Austin TX"),
            ("A", "x"),
            ("B", "y"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
}

#[test]
fn plain_colon_pairs_skip_headings_task_lists_and_wide_table_rows() {
    let md = "# Title: x\n- Defendant: Devon\n- [x] Done: yes\n[FORM FIELD] Tel.: 555\n\
              <tr><th>API NO:</th><th>WELL</th></tr>\nTime: 11:30 AM";
    assert_eq!(
        pairs::plain_colon_pairs(md),
        [("Defendant", "Devon"), ("Tel.", "555"), ("Time", "11:30 AM")]
            .map(|(a, b)| (a.to_string(), b.to_string()))
    );
}

#[test]
fn the_exact_label_beats_a_fuzzy_one_that_comes_first() {
    let md = "County: Travis\nCountry: USA";
    assert_eq!(text(md, "Country").as_deref(), Some("USA"));
    assert_eq!(text(md, "County").as_deref(), Some("Travis"));
    assert_eq!(text(md, "Phone"), None);
}

#[test]
fn tables_give_two_column_rows_header_columns_and_cells_with_breaks() {
    let md = "| Phone | 555 |\n|---|---|\n| Fax | 556 |\n\n\
              <table><tr><th>Item</th><th>Qty</th><th>Price</th></tr>\
              <tr><td>Bolts</td><td>12</td><td>3.50</td></tr>\
              <tr><td>Nuts</td><td>40</td><td>1.25</td></tr></table>\n\n\
              <table><tr><td>Operator<br/><strong>Kebo</strong></td><td>x</td></tr></table>";
    assert_eq!(text(md, "Fax").as_deref(), Some("556"));
    assert_eq!(text(md, "Qty").as_deref(), Some("12"));
    assert_eq!(text(md, "Operator").as_deref(), Some("Kebo"));
    assert_eq!(cells::table_cell_for_row_label(md, "Qty (row 2)").as_deref(), Some("40"));
    assert_eq!(cells::table_cell_for_row_label(md, "Qty (row 9)").as_deref(), Some(""));
    assert_eq!(cells::split_row_label("Price (ROW 1) "), Some(("Price".to_string(), 1)));
}

#[test]
fn wide_html_tables_pair_a_label_with_its_value_shaped_neighbour() {
    let md = "<table><tr><th>FILE NO:</th><th>COMPANY</th><th>KEBO OIL &amp; GAS, INC.</th></tr>\
              <tr><th>API NO:</th><th>WELL</th><th>LEHMAN #1</th></tr></table>";
    assert_eq!(text(md, "WELL").as_deref(), Some("LEHMAN #1"));
    assert_eq!(text(md, "COMPANY").as_deref(), Some("KEBO OIL & GAS, INC."));
    // "FILE NO:" has only label-like neighbours (to the right "COMPANY", below "API NO:").
    assert_eq!(text(md, "FILE NO").as_deref(), Some(""));
}

#[test]
fn fallbacks_underline_blanks_and_adjacent_lines() {
    assert_eq!(text("Lot <u>12</u>, Block <u>C</u>.", "Block").as_deref(), Some("C"));
    assert_eq!(text("Processor's Name ________", "Processor's Name").as_deref(), Some(""));
    assert_eq!(text("1a. FILE NUMBER\nOR-2025\n", "1a. FILE NUMBER").as_deref(), Some("OR-2025"));
    // An italic caption takes the line above.
    assert_eq!(text("Anthony Cole )\n*Plaintiff* )", "Plaintiff").as_deref(), Some("Anthony Cole"));
}

#[test]
fn checkbox_states_come_from_glyphs_brackets_and_task_lists() {
    let md =
        "☐ Single ☑ Married\nChecking \\[x] Savings \\[ ]\n- [x] Urgent\n- Routine [ ]\n\\[x] Sole";
    let st = |l| checkbox::state_for_label(md, l);
    assert_eq!(st("Single"), Some(false));
    assert_eq!(st("Married"), Some(true));
    assert_eq!(st("Checking"), Some(true));
    assert_eq!(st("Savings"), Some(false));
    assert_eq!(st("Urgent"), Some(true));
    assert_eq!(st("Routine"), Some(false));
    assert_eq!(st("Sole"), Some(true));
    assert_eq!(st("Divorced"), None);
}

#[test]
fn rules_check_text_checkbox_and_signature_values() {
    let md = "**Name:** Jane\nApproved: Yes\nSignature: Jane\nWitness ________\n☑ Married";
    assert!(rule("Name", "jane".into(), "text").run(md).passed);
    assert!(rule("Name", serde_json::json!(["Joan", "Jane"]), "text").run(md).passed);
    let o = rule("Name", "Joan".into(), "text").run(md);
    assert_eq!(o.explanation, "expected 'Joan', got 'Jane'");
    assert!(rule("Approved", true.into(), "checkbox").run(md).passed);
    assert!(rule("Married", "yes".into(), "checkbox").run(md).passed);
    let o = rule("Married", "maybe".into(), "checkbox").run(md);
    assert_eq!(o.explanation, "checkbox value must be coercible to bool, got 'maybe'");
    assert!(rule("Signature", "Jane D.".into(), "signature").run(md).passed);
    assert!(rule("Witness", false.into(), "signature").run(md).passed);
    let o = rule("Notary", "".into(), "signature").run(md);
    assert_eq!(o.explanation, "label not found: 'Notary'");
    assert!(rule("", "".into(), "text").run(md).error);
    let bad = serde_json::json!({"label": "x", "value": 3});
    assert!(FormField::from_fields(bad.as_object().unwrap()).is_err());
}

#[test]
fn a_span_python_cannot_read_fails_the_lookups_that_read_html_tables() {
    let md = "☑ Married\n<table><tr><td colspan=\"2 | \">Name</td><td>Jane</td></tr></table>";
    let o = rule("Name", "Jane".into(), "text").run(md);
    assert!(o.error, "{o:?}");
    assert_eq!(
        o.explanation,
        "Error executing rule: invalid literal for int() with base 10: '2 | '"
    );
    // A checkbox found by its glyph never reads the tables.
    assert!(rule("Married", true.into(), "checkbox").run(md).passed);
    assert_eq!(py_repr("t\u{a0}rue"), "'t\\xa0rue'");
    assert_eq!(py_repr("it's"), "\"it's\"");
}
