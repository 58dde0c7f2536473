//! Degradation profiles: named, documented recipes of image operations with their parameters
//! (`docs/degrade.md`), written `name[:key=value]...` (`scan`, `jpeg-30`, `150dpi`,
//! `scan:rotate=2:noise=20`), and the plan a profile draws for one page from its seed.

use serde::Serialize;

use super::geometry::Homography;
use super::ops::{self, Img};
use crate::metrics::stats::Rng;

listed_enum! {
    /// The profiles, each a recipe ([`Profile::apply`]).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Kind {
        /// A flatbed scan: 300 dpi, grey, a slight rotation, paper noise, a little blur, and an
        /// uneven black-and-white threshold.
        Scan,
        /// A fax: 200 × 100 dpi, black and white.
        Fax,
        /// A phone photo: the page seen in perspective on a grey table, an uneven light, blur,
        /// sensor noise, stored as a JPEG.
        Photo,
        /// A skewed page: a rotation of 2° to 5° either way.
        Skew,
        /// JPEG compression at a quality (`jpeg-Q`).
        Jpeg,
        /// A resolution (`Ndpi`): the page rendered at N dots per inch.
        Dpi,
        /// A Gaussian blur.
        Blur,
        /// Gaussian noise.
        Noise,
        /// Ink: bled (strokes thickened) and/or faded.
        Ink,
    }
}

/// One parameter of a profile: its key, default, smallest and largest value, and meaning.
type Param = (&'static str, f64, f64, f64, &'static str);

impl Kind {
    /// The name as written (`jpeg` and `dpi` take their number in the name: `jpeg-30`,
    /// `150dpi`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Scan => "scan",
            Kind::Fax => "fax",
            Kind::Photo => "photo",
            Kind::Skew => "skew",
            Kind::Jpeg => "jpeg-Q",
            Kind::Dpi => "Ndpi",
            Kind::Blur => "blur",
            Kind::Noise => "noise",
            Kind::Ink => "ink",
        }
    }

    /// The parameters and their defaults. Sizes in pixels are at the profile's `dpi`.
    pub fn params(self) -> &'static [Param] {
        match self {
            Kind::Scan => &[
                ("dpi", 300.0, 36.0, 1200.0, "resolution, dots per inch"),
                (
                    "rotate",
                    1.0,
                    0.0,
                    45.0,
                    "largest rotation either way, degrees (drawn uniformly)",
                ),
                ("noise", 12.0, 0.0, 128.0, "paper noise, standard deviation in grey levels"),
                ("blur", 0.6, 0.0, 20.0, "blur, standard deviation in pixels"),
                ("threshold", 160.0, 1.0, 254.0, "black-and-white threshold, grey level"),
                (
                    "uneven",
                    30.0,
                    0.0,
                    127.0,
                    "how far the threshold wanders over the page, grey levels",
                ),
                ("period", 5.0, 0.5, 100.0, "how far apart its highs are, inches"),
            ],
            Kind::Fax => &[
                ("dpi", 200.0, 36.0, 1200.0, "horizontal resolution, dots per inch"),
                ("lines", 100.0, 18.0, 1200.0, "vertical resolution, lines per inch"),
                ("threshold", 128.0, 1.0, 254.0, "black-and-white threshold, grey level"),
            ],
            Kind::Photo => &[
                ("dpi", 200.0, 36.0, 1200.0, "resolution, dots per inch"),
                (
                    "inset",
                    0.06,
                    0.0,
                    0.2,
                    "largest inset of each page corner, fraction of the page side",
                ),
                (
                    "light",
                    0.6,
                    0.05,
                    1.0,
                    "light at the dark side of the gradient (1 at the bright side)",
                ),
                ("blur", 1.2, 0.0, 20.0, "blur, standard deviation in pixels"),
                ("noise", 4.0, 0.0, 128.0, "sensor noise, standard deviation in grey levels"),
                ("quality", 60.0, 1.0, 100.0, "JPEG quality"),
                ("table", 90.0, 0.0, 255.0, "grey of what is around the page"),
            ],
            Kind::Skew => &[
                ("dpi", 200.0, 36.0, 1200.0, "resolution, dots per inch"),
                ("min", 2.0, 0.0, 45.0, "smallest rotation, degrees"),
                ("max", 5.0, 0.0, 45.0, "largest rotation, degrees (either way, drawn uniformly)"),
            ],
            Kind::Jpeg => &[
                ("dpi", 200.0, 36.0, 1200.0, "resolution, dots per inch"),
                ("quality", 50.0, 1.0, 100.0, "JPEG quality (the Q of jpeg-Q)"),
            ],
            Kind::Dpi => &[("dpi", 150.0, 18.0, 1200.0, "resolution (the N of Ndpi)")],
            Kind::Blur => &[
                ("dpi", 200.0, 36.0, 1200.0, "resolution, dots per inch"),
                ("sigma", 2.0, 0.0, 50.0, "standard deviation in pixels"),
            ],
            Kind::Noise => &[
                ("dpi", 200.0, 36.0, 1200.0, "resolution, dots per inch"),
                ("sigma", 25.0, 0.0, 128.0, "standard deviation in grey levels"),
            ],
            Kind::Ink => &[
                ("dpi", 200.0, 36.0, 1200.0, "resolution, dots per inch"),
                ("bleed", 1.0, 0.0, 20.0, "strokes thickened by this many pixels each side"),
                ("fade", 0.0, 0.0, 1.0, "share of the way to white each dark sample moves"),
            ],
        }
    }
}

/// A profile with every parameter's value, as written by the user (`spec`).
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// Which recipe.
    pub kind: Kind,
    /// As written (`jpeg-30`, `scan:rotate=2`): the twin dataset's suffix.
    pub spec: String,
    /// Every parameter's value, in [`Kind::params`] order.
    pub values: Vec<(&'static str, f64)>,
}

/// The profiles' names for messages: `scan, fax, photo, skew, jpeg-Q, Ndpi, blur, noise, ink`.
pub fn names() -> String {
    Kind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
}

impl Profile {
    /// Reads `name[:key=value]...`; an unknown name, key or a value out of its range is an
    /// error that names the profiles or the profile's keys.
    pub fn parse(spec: &str) -> Result<Profile, String> {
        let mut parts = spec.split(':');
        let name = parts.next().unwrap_or_default().trim();
        let (kind, from_name) = if let Some(q) = name.strip_prefix("jpeg-") {
            (Kind::Jpeg, Some(("quality", q)))
        } else if let Some(n) = name.strip_suffix("dpi").filter(|n| !n.is_empty()) {
            (Kind::Dpi, Some(("dpi", n)))
        } else {
            let k = Kind::ALL
                .into_iter()
                .find(|k| k.name() == name)
                .filter(|k| !matches!(k, Kind::Jpeg | Kind::Dpi))
                .ok_or_else(|| {
                    format!("no degradation profile `{name}`; the profiles: {}", names())
                })?;
            (k, None)
        };
        let mut values: Vec<(&'static str, f64)> =
            kind.params().iter().map(|p| (p.0, p.1)).collect();
        let mut set = |key: &str, value: &str| -> Result<(), String> {
            let Some(i) = kind.params().iter().position(|p| p.0 == key) else {
                let keys: Vec<&str> = kind.params().iter().map(|p| p.0).collect();
                return Err(format!(
                    "profile {} has no parameter `{key}`; its parameters: {}",
                    kind.name(),
                    keys.join(", ")
                ));
            };
            let (_, _, lo, hi, _) = kind.params()[i];
            let v: f64 = value
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite() && *v >= lo && *v <= hi)
                .ok_or_else(|| {
                    format!(
                        "{}'s {key} must be a number from {lo} to {hi}, not `{value}`",
                        kind.name()
                    )
                })?;
            values[i].1 = v;
            Ok(())
        };
        if let Some((key, value)) = from_name {
            set(key, value)?;
        }
        for p in parts {
            let (key, value) = p
                .split_once('=')
                .ok_or_else(|| format!("`{p}` in profile `{spec}` is not key=value"))?;
            set(key.trim(), value.trim())?;
        }
        let profile = Profile { kind, spec: spec.trim().to_string(), values };
        if kind == Kind::Skew && profile.get("min") > profile.get("max") {
            return Err(format!(
                "skew's min ({}) is over its max ({})",
                profile.get("min"),
                profile.get("max")
            ));
        }
        Ok(profile)
    }

    /// A parameter's value (a key the profile has: a programming error otherwise).
    pub fn get(&self, key: &str) -> f64 {
        self.values.iter().find(|v| v.0 == key).map(|v| v.1).expect("a profile's own key")
    }

    /// The resolution the page is rendered at.
    pub fn dpi(&self) -> f64 {
        self.get("dpi")
    }

    /// Draws this page's plan (the random parts of the recipe) from `rng`: a page of
    /// `width` × `height` points.
    pub fn plan(&self, width: f64, height: f64, rng: &mut Rng) -> PagePlan {
        let uniform = |rng: &mut Rng, lo: f64, hi: f64| {
            lo + (hi - lo) * ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
        };
        let mut plan = PagePlan {
            rotate: 0.0,
            corners: None,
            gradient_angle: None,
            threshold_phase: None,
            noise_seed: rng.next_u64(),
        };
        match self.kind {
            Kind::Scan => {
                let r = self.get("rotate");
                plan.rotate = uniform(rng, -r, r);
                let tau = std::f64::consts::TAU;
                plan.threshold_phase = Some((uniform(rng, 0.0, tau), uniform(rng, 0.0, tau)));
            }
            Kind::Photo => {
                let inset = self.get("inset");
                let mut c = [(0.0, 0.0); 4];
                let signs = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)];
                let base = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)];
                for i in 0..4 {
                    let dx = uniform(rng, 0.0, inset) * width * signs[i].0;
                    let dy = uniform(rng, 0.0, inset) * height * signs[i].1;
                    c[i] = (base[i].0 + dx, base[i].1 + dy);
                }
                plan.corners = Some(c);
                plan.gradient_angle = Some(uniform(rng, 0.0, 360.0));
            }
            Kind::Skew => {
                let a = uniform(rng, self.get("min"), self.get("max"));
                plan.rotate = if rng.next_u64() & 1 == 0 { a } else { -a };
            }
            Kind::Fax | Kind::Jpeg | Kind::Dpi | Kind::Blur | Kind::Noise | Kind::Ink => {}
        }
        plan
    }

    /// The page's homography in points (what moves its pixels and its truth's boxes).
    pub fn homography(&self, plan: &PagePlan, width: f64, height: f64) -> Homography {
        let mut h = Homography::rotation(plan.rotate, width / 2.0, height / 2.0);
        if let Some(c) = plan.corners {
            let page = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)];
            if let Some(p) = Homography::from_points(page, c) {
                h = p.after(&h);
            }
        }
        h
    }

    /// Whether the page is kept in grey (one channel).
    fn grey(&self) -> bool {
        match self.kind {
            Kind::Scan | Kind::Fax | Kind::Ink => true,
            Kind::Photo | Kind::Skew | Kind::Jpeg | Kind::Dpi | Kind::Blur | Kind::Noise => false,
        }
    }

    /// Applies the recipe to a page rendered at [`Profile::dpi`] (`bgr`, `width` × `height`
    /// pixels, the page `page_w` points wide): the image and how the PDF stores it.
    pub fn apply(
        &self,
        bgr: Vec<u8>,
        width: usize,
        height: usize,
        page: (f64, f64),
        plan: &PagePlan,
    ) -> (Img, Encoding) {
        let mut img = Img::from_bgr(width, height, bgr, self.grey());
        let k = width as f64 / page.0;
        let h = self.homography(plan, page.0, page.1).in_frame(k, height as f64 / page.1);
        let mut rng = Rng::new(plan.noise_seed);
        match self.kind {
            Kind::Scan => {
                img = ops::warp(&img, &h, 255);
                ops::noise(&mut img, self.get("noise"), &mut rng);
                img = ops::blur(&img, self.get("blur"));
                let period = self.get("period") * self.dpi();
                let phase = plan.threshold_phase.unwrap_or((0.0, 0.0));
                img =
                    ops::threshold(&img, self.get("threshold"), self.get("uneven"), period, phase);
                (img, Encoding::Bits)
            }
            Kind::Fax => {
                let factor = (self.dpi() / self.get("lines")).round().max(1.0) as usize;
                img = ops::halve_rows(&img, factor);
                img = ops::threshold(&img, self.get("threshold"), 0.0, 1.0, (0.0, 0.0));
                (img, Encoding::Bits)
            }
            Kind::Photo => {
                img = ops::warp(&img, &h, self.get("table") as u8);
                let light = self.get("light");
                ops::illumination(&mut img, 1.0, light, plan.gradient_angle.unwrap_or(0.0));
                img = ops::blur(&img, self.get("blur"));
                ops::noise(&mut img, self.get("noise"), &mut rng);
                (img, Encoding::Jpeg(self.get("quality") as u8))
            }
            Kind::Skew => (ops::warp(&img, &h, 255), Encoding::Flate),
            Kind::Jpeg => (img, Encoding::Jpeg(self.get("quality") as u8)),
            Kind::Dpi => (img, Encoding::Flate),
            Kind::Blur => (ops::blur(&img, self.get("sigma")), Encoding::Flate),
            Kind::Noise => {
                ops::noise(&mut img, self.get("sigma"), &mut rng);
                (img, Encoding::Flate)
            }
            Kind::Ink => {
                img = ops::bleed(&img, self.get("bleed").round() as usize);
                ops::fade(&mut img, self.get("fade"));
                (img, Encoding::Flate)
            }
        }
    }

    /// Every parameter as JSON (`{"profile": "scan", "dpi": 300, ...}`), for the twin's
    /// attributes.
    pub fn describe(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        m.insert("profile".into(), self.kind.name().into());
        for (k, v) in &self.values {
            m.insert((*k).into(), (*v).into());
        }
        serde_json::Value::Object(m)
    }
}

/// How a page image goes into the PDF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// 8-bit samples, deflated.
    Flate,
    /// One bit a pixel (black and white), deflated.
    Bits,
    /// A baseline JPEG of this quality (the compression is part of the degradation).
    Jpeg(u8),
}

/// What a profile drew for one page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PagePlan {
    /// Rotation, degrees, counter-clockwise as seen.
    pub rotate: f64,
    /// Where the page's corners (top-left, top-right, bottom-right, bottom-left) go, points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corners: Option<[(f64, f64); 4]>,
    /// The light gradient's direction, degrees.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gradient_angle: Option<f64>,
    /// The uneven threshold's phases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold_phase: Option<(f64, f64)>,
    /// The seed of the page's noise.
    pub noise_seed: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_with_their_numbers_and_overrides_and_bad_ones_say_why() {
        let p = Profile::parse("jpeg-30").unwrap();
        assert_eq!((p.kind, p.get("quality"), p.dpi()), (Kind::Jpeg, 30.0, 200.0));
        assert_eq!(Profile::parse("150dpi").unwrap().dpi(), 150.0);
        let s = Profile::parse("scan:rotate=2:noise=20").unwrap();
        assert_eq!((s.get("rotate"), s.get("noise"), s.dpi()), (2.0, 20.0, 300.0));
        assert_eq!(s.spec, "scan:rotate=2:noise=20");
        let e = Profile::parse("xerox").unwrap_err();
        assert!(e.contains("no degradation profile `xerox`") && e.contains("scan, fax"), "{e}");
        let e = Profile::parse("scan:tilt=2").unwrap_err();
        assert!(e.contains("no parameter `tilt`") && e.contains("rotate"), "{e}");
        assert!(Profile::parse("jpeg-0").unwrap_err().contains("from 1 to 100"));
        assert!(Profile::parse("jpeg-").is_err());
        assert!(Profile::parse("dpi").is_err());
        assert!(Profile::parse("scan:rotate").unwrap_err().contains("not key=value"));
        assert!(Profile::parse("skew:min=6").unwrap_err().contains("over its max"));
    }

    #[test]
    fn plans_follow_the_seed_and_stay_in_their_ranges() {
        let p = Profile::parse("skew").unwrap();
        let a = p.plan(612.0, 792.0, &mut Rng::new(9));
        assert_eq!(a, p.plan(612.0, 792.0, &mut Rng::new(9)));
        for seed in 0..200 {
            let r = p.plan(612.0, 792.0, &mut Rng::new(seed)).rotate.abs();
            assert!((2.0..=5.0).contains(&r), "{r}");
        }
        let photo = Profile::parse("photo").unwrap();
        let plan = photo.plan(600.0, 800.0, &mut Rng::new(1));
        let c = plan.corners.unwrap();
        // Each corner moved inwards by at most 6 % of the side.
        assert!(c[0].0 >= 0.0 && c[0].0 <= 36.0 && c[2].1 >= 752.0 && c[2].1 <= 800.0, "{c:?}");
        let h = photo.homography(&plan, 600.0, 800.0);
        let (x, y) = h.apply(600.0, 800.0);
        assert!((x - c[2].0).abs() < 1e-9 && (y - c[2].1).abs() < 1e-9);
    }
}
