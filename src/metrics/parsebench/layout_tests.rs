use super::*;
use crate::doc::{BBox, Block, Page};

fn rule(json: &str) -> Map<String, Value> {
    serde_json::from_str::<Value>(json).unwrap().as_object().unwrap().clone()
}

fn pred(class: &'static str, b: Xyxy) -> Prediction {
    Prediction { page: 1, bbox: b, class, text: String::new() }
}

fn scored(c: LayoutCase) -> (Vec<Option<Outcome>>, BTreeMap<String, f64>) {
    match c {
        LayoutCase::Scored(o, m) => (o, m),
        other => panic!("not scored: {other:?}"),
    }
}

#[test]
fn ioa_and_iou_by_hand() {
    let gt = [0.1, 0.1, 0.5, 0.3]; // 0.4 × 0.2 = 0.08
    let p = [0.3, 0.2, 0.7, 0.4]; // 0.4 × 0.2; overlap 0.2 × 0.1 = 0.02
    assert!((ioa(&gt, &p) - 0.25).abs() < 1e-12);
    assert!((ioa(&p, &gt) - 0.25).abs() < 1e-12);
    assert!((iou(&gt, &p) - 0.02 / 0.14).abs() < 1e-12);
    assert_eq!(ioa(&gt, &[0.6, 0.6, 0.7, 0.7]), 0.0);
}

#[test]
fn localization_needs_both_shares_and_takes_the_best_iou_among_the_eligible() {
    let gt = [0.1, 0.1, 0.5, 0.3];
    // A page-wide box covers the element (IoA 1) but is mostly outside it: 0.08 / 0.8 = 0.1.
    let wide = [0.0, 0.0, 1.0, 0.8];
    let c = check_element(&gt, false, "Text", &[wide], &["Text"]);
    assert!(!c.localized && !c.classified, "{c:?}");
    assert_eq!(c.reason, "below_threshold");
    // Two eligible boxes: the tighter one (higher IoU) is matched, and its class decides.
    let loose = [0.1, 0.1, 0.6, 0.35]; // IoA 1, IoA pred 0.08 / 0.125 = 0.64
    let tight = [0.1, 0.12, 0.5, 0.3]; // IoA 0.9, IoA pred 1
    let c = check_element(&gt, false, "Text", &[loose, tight], &["Text", "Section"]);
    assert_eq!(c.best, Some(1));
    assert!(c.localized && !c.classified);
    assert_eq!(c.reason, "class_mismatch");
    let c = check_element(&gt, false, "Section", &[loose, tight], &["Text", "Section"]);
    assert!(c.localized && c.classified, "{c:?}");
    // Half the element covered is enough (≥ 0.5), less is not (binary fractions: exact).
    let gt2 = [0.25, 0.25, 0.75, 0.5];
    let half = [0.25, 0.25, 0.5, 0.5];
    assert_eq!(ioa(&gt2, &half), 0.5);
    assert!(check_element(&gt2, false, "Text", &[half], &["Text"]).localized);
    let less = [0.25, 0.25, 0.49, 0.5];
    assert!(!check_element(&gt2, false, "Text", &[less], &["Text"]).localized);
    assert_eq!(check_element(&gt, false, "Text", &[], &[]).reason, "no_overlap");
}

#[test]
fn page_furniture_is_localized_by_the_band_its_predictions_cover() {
    // A header band 0.8 wide, 0.04 high.
    let gt = [0.1, 0.02, 0.9, 0.06];
    // Two pieces: left 0.1..0.4 and right 0.6..0.85; span 0.75 / 0.8 = 0.9375; full height.
    let boxes = [[0.1, 0.02, 0.4, 0.06], [0.6, 0.02, 0.85, 0.06]];
    let g = furniture_group(&gt, &boxes);
    assert_eq!(g.members, vec![0, 1]);
    assert!((g.x_span - 0.9375).abs() < 1e-12);
    assert!((g.y_coverage - 1.0).abs() < 1e-12);
    // The representative is the piece with the higher IoU: the wider left one.
    assert_eq!(g.representative, Some(0));
    let c = check_element(&gt, true, "Page-header", &boxes, &["Page-header", "Text"]);
    assert!(c.localized && c.classified, "{c:?}");
    // One piece alone spans 0.3 / 0.8 < 0.8.
    let c = check_element(&gt, true, "Page-header", &boxes[..1], &["Page-header"]);
    assert!(!c.localized && c.reason == "below_threshold", "{c:?}");
    // A box mostly outside the band (IoA pred < 0.2) is not a member.
    let tall = [[0.1, 0.0, 0.9, 0.5]];
    assert!(furniture_group(&gt, &tall).members.is_empty());
    let c = check_element(&gt, true, "Page-header", &tall, &["Page-header"]);
    assert_eq!(c.reason, "no_overlap");
}

#[test]
fn ontologies_map_classes() {
    assert_eq!(gt_class("Title", Ontology::Basic), "Section");
    assert_eq!(gt_class("Formula", Ontology::Basic), "Text");
    assert_eq!(gt_class("List-item", Ontology::Basic), "Text");
    assert_eq!(gt_class("Oddity", Ontology::Basic), "Oddity");
    assert_eq!(gt_class("Title", Ontology::Core), "Title");
    assert_eq!(pred_class("Section-header", Ontology::Basic), Some("Section"));
    assert_eq!(pred_class("Code", Ontology::Core), Some("Text"));
    assert_eq!(pred_class("Form", Ontology::Core), None);
    assert_eq!(Ontology::parse(Some("Canonical17")), Ok(Ontology::Core));
    assert!(Ontology::parse(Some("yolo")).is_err());
}

#[test]
fn a_case_scores_elements_and_its_pass_rates() {
    let rules = [
        rule(r#"{"type":"layout","page":1,"bbox":[0.1,0.1,0.4,0.2],"canonical_class":"Title"}"#),
        rule(r#"{"type":"layout","page":1,"bbox":[0.1,0.4,0.4,0.2],"canonical_class":"Table"}"#),
        rule(r#"{"type":"layout","page":1,"bbox":[0.1,0.7,0.4,0.1],"canonical_class":"Text"}"#),
        rule(
            r#"{"type":"layout","page":1,"bbox":[0.5,0.9,0.1,0.1],"canonical_class":"Text","attributes":{"ignore":"true"}}"#,
        ),
    ];
    let preds = [
        // The title, as a section heading: Section in Basic.
        pred("Section-header", [0.1, 0.1, 0.5, 0.3]),
        // The table's place, read as text: localized, wrong class.
        pred("Text", [0.1, 0.4, 0.5, 0.6]),
        // Nothing near the third element.
    ];
    let (o, m) = scored(score(&rules, Some(&preds)));
    let passed: Vec<Option<bool>> = o.iter().map(|x| x.as_ref().map(|x| x.passed)).collect();
    assert_eq!(passed, vec![Some(true), Some(false), Some(false), None]);
    assert!(o[1].as_ref().unwrap().explanation.starts_with("class_mismatch"));
    assert!((m["layout_element_rule_pass_rate"] - 1.0 / 3.0).abs() < 1e-12);
    assert!((m["layout_localization_pass_rate"] - 2.0 / 3.0).abs() < 1e-12);
    assert!((m["layout_classification_pass_rate"] - 1.0 / 3.0).abs() < 1e-12);
    // (2 + 1) of 6 checks.
    assert!((m["layout_rule_pass_rate"] - 0.5).abs() < 1e-12);
    assert_eq!(m["rule_pass_rate"], m["layout_rule_pass_rate"]);
    // No boxes at all: every element fails, the case is 0.
    let (o, m) = scored(score(&rules, None));
    assert!(o[..3].iter().all(|x| x.as_ref().is_some_and(|x| !x.passed)));
    assert_eq!(m["layout_element_rule_pass_rate"], 0.0);
    // Boxes, none on the case's page: skipped.
    let other = [Prediction { page: 2, ..preds[0].clone() }];
    assert_eq!(score(&rules, Some(&other)), LayoutCase::Skipped);
    // With content, the matched text counts too: a third check per applicable element.
    let content = [
        rule(
            r#"{"type":"layout","page":1,"bbox":[0.1,0.1,0.4,0.2],"canonical_class":"Title","content":{"type":"text","text":"Annual report"}}"#,
        ),
        rule(
            r#"{"type":"layout","page":1,"bbox":[0.1,0.4,0.4,0.2],"canonical_class":"Text","content":{"type":"text","text":"Costs were flat"}}"#,
        ),
        // A formula's content is not attributed.
        rule(
            r#"{"type":"layout","page":1,"bbox":[0.1,0.7,0.4,0.1],"canonical_class":"Formula","content":{"type":"text","text":"x"}}"#,
        ),
    ];
    let preds = [
        Prediction { text: "Annual Report".into(), ..pred("Title", [0.1, 0.1, 0.5, 0.3]) },
        // Right place and class, other words: 1 of 3 tokens, 1 of 2 predicted, F1 0.4.
        Prediction { text: "Costs rose".into(), ..pred("Text", [0.1, 0.4, 0.5, 0.6]) },
        Prediction { text: "y".into(), ..pred("Formula", [0.1, 0.7, 0.5, 0.8]) },
    ];
    // Without `ro_index` the evaluator's reading-order sort fails: the case is left out.
    assert!(matches!(score(&content, Some(&preds)), LayoutCase::Failed(_)));
    let content: Vec<Map<String, Value>> = content
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut r = r.clone();
            r.insert("ro_index".into(), Value::from(i));
            r
        })
        .collect();
    let (o, m) = scored(score(&content, Some(&preds)));
    let passed: Vec<bool> = o.iter().map(|x| x.as_ref().unwrap().passed).collect();
    assert_eq!(passed, vec![true, false, true]);
    assert!(o[1].as_ref().unwrap().explanation.starts_with("attribution"), "{o:?}");
    assert_eq!(m["layout_attribution_pass_rate"], 0.5);
    // (3 localized + 3 classified + 1 attributed) / (6 + 2).
    assert!((m["layout_rule_pass_rate"] - 7.0 / 8.0).abs() < 1e-12);
    assert!((m["layout_element_rule_pass_rate"] - 2.0 / 3.0).abs() < 1e-12);
}

#[test]
fn a_docs_blocks_are_normalized_by_their_page() {
    let d = Doc {
        pages: vec![Page { width: 612.0, height: 792.0 }],
        blocks: vec![
            Block::new(BlockKind::Heading, 0, BBox::new(61.2, 79.2, 306.0, 158.4), "Intro"),
            // No box (a Markdown import's block): not a prediction.
            Block::new(BlockKind::Paragraph, 0, BBox::default(), "Text"),
            // A page the Doc does not size: not a prediction.
            Block::new(BlockKind::Paragraph, 1, BBox::new(1.0, 1.0, 2.0, 2.0), "Text"),
        ],
        ..Default::default()
    };
    let p = predictions(&d);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].class, "Section-header");
    assert_eq!(p[0].page, 1);
    assert!((p[0].bbox[0] - 0.1).abs() < 1e-9 && (p[0].bbox[3] - 0.2).abs() < 1e-9);
}
