//! `rename_all`: serde's case rules, applied to field names (written in snake_case) and variant names
//! (written in PascalCase).

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    pub const NAMES: &'static [&'static str] = &[
        "lowercase",
        "UPPERCASE",
        "PascalCase",
        "camelCase",
        "snake_case",
        "SCREAMING_SNAKE_CASE",
        "kebab-case",
        "SCREAMING-KEBAB-CASE",
    ];

    pub fn parse(s: &str) -> Option<RenameRule> {
        Some(match s {
            "lowercase" => RenameRule::Lower,
            "UPPERCASE" => RenameRule::Upper,
            "PascalCase" => RenameRule::Pascal,
            "camelCase" => RenameRule::Camel,
            "snake_case" => RenameRule::Snake,
            "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
            "kebab-case" => RenameRule::Kebab,
            "SCREAMING-KEBAB-CASE" => RenameRule::ScreamingKebab,
            _ => return None,
        })
    }

    /// A PascalCase variant name under this rule.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => {
                let mut chars = variant.chars();
                chars.next().map(|c| c.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
            }
            RenameRule::Snake | RenameRule::ScreamingSnake | RenameRule::Kebab | RenameRule::ScreamingKebab => {
                let mut snake = String::new();
                for (i, c) in variant.char_indices() {
                    if i > 0 && c.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(c.to_ascii_lowercase());
                }
                from_snake(snake, self)
            }
        }
    }

    /// A snake_case field name under this rule.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake | RenameRule::Kebab | RenameRule::ScreamingKebab => {
                from_snake(field.to_owned(), self)
            }
            RenameRule::Pascal | RenameRule::Camel => {
                let mut out = String::new();
                let mut capitalize = self == RenameRule::Pascal;
                for c in field.chars() {
                    if c == '_' {
                        capitalize = true;
                    } else if capitalize {
                        out.push(c.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
        }
    }
}

/// A snake_case name under one of the snake, kebab and upper-case rules.
fn from_snake(snake: String, rule: RenameRule) -> String {
    match rule {
        RenameRule::ScreamingSnake | RenameRule::Upper => snake.to_ascii_uppercase(),
        RenameRule::Kebab => snake.replace('_', "-"),
        RenameRule::ScreamingKebab => snake.replace('_', "-").to_ascii_uppercase(),
        _ => snake,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants() {
        let got: Vec<String> = RenameRule::NAMES
            .iter()
            .filter_map(|r| RenameRule::parse(r))
            .map(|r| r.apply_to_variant("VeryHigh"))
            .collect();
        assert_eq!(
            got,
            ["veryhigh", "VERYHIGH", "VeryHigh", "veryHigh", "very_high", "VERY_HIGH", "very-high", "VERY-HIGH"]
        );
    }

    #[test]
    fn fields() {
        let got: Vec<String> = RenameRule::NAMES
            .iter()
            .filter_map(|r| RenameRule::parse(r))
            .map(|r| r.apply_to_field("start_date"))
            .collect();
        assert_eq!(
            got,
            [
                "start_date",
                "START_DATE",
                "StartDate",
                "startDate",
                "start_date",
                "START_DATE",
                "start-date",
                "START-DATE"
            ]
        );
    }
}
