//! Results for people: tool text as text, structured content as pretty JSON, lists as aligned tables with
//! their descriptions. Coloured only when stdout is a terminal and `NO_COLOR` is not set.

use crate::{Inspection, Listed, era_name};
use base64::Engine as _;
use fastmcp::protocol::{
    CallToolResult, ContentBlock, GetPromptResult, JsonObject, Prompt, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, Role, Tool,
};
use serde_json::Value;
use std::fmt::Write as _;
use std::io::IsTerminal;

/// ANSI styling, or none.
pub struct Style {
    on: bool,
}

impl Style {
    /// On when stdout is a terminal and `NO_COLOR` is unset (or empty, as no-color.org has it).
    pub fn for_stdout() -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style { on: std::io::stdout().is_terminal() && !no_color }
    }

    #[cfg(test)]
    fn plain() -> Self {
        Style { on: false }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.on && !text.is_empty() { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }

    fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }

    fn name(&self, text: &str) -> String {
        self.paint("1;36", text)
    }

    fn heading(&self, text: &str) -> String {
        self.paint("1;4", text)
    }
}

/// What `list` read: one table, or a titled table per kind when several were asked for.
pub fn lists(style: &Style, listed: &Listed) -> String {
    let mut sections: Vec<(&str, usize, String)> = Vec::new();
    if let Some(tools) = &listed.tools {
        sections.push(("Tools", tools.len(), tools_table(style, tools)));
    }
    if let Some(resources) = &listed.resources {
        sections.push(("Resources", resources.len(), resources_table(style, resources)));
    }
    if let Some(templates) = &listed.templates {
        sections.push(("Resource templates", templates.len(), templates_table(style, templates)));
    }
    if let Some(prompts) = &listed.prompts {
        sections.push(("Prompts", prompts.len(), prompts_table(style, prompts)));
    }
    if let [(_, _, table)] = &sections[..] {
        return table.clone();
    }
    let titled: Vec<String> = sections
        .iter()
        .map(|(title, n, table)| format!("{}\n{table}", style.heading(&format!("{title} ({n})"))))
        .collect();
    titled.join("\n")
}

fn tools_table(style: &Style, tools: &[Tool]) -> String {
    let rows = tools
        .iter()
        .map(|t| vec![t.name.clone(), signature(&t.input_schema), summary(t.description.as_ref().or(t.title.as_ref()))])
        .collect::<Vec<_>>();
    table(style, &["NAME", "ARGUMENTS", "DESCRIPTION"], &rows, "(no tools)")
}

fn resources_table(style: &Style, resources: &[Resource]) -> String {
    let rows = resources
        .iter()
        .map(|r| {
            let about = r.description.as_ref().or(r.title.as_ref());
            vec![r.uri.clone(), r.name.clone(), r.mime_type.clone().unwrap_or_default(), summary(about)]
        })
        .collect::<Vec<_>>();
    table(style, &["URI", "NAME", "TYPE", "DESCRIPTION"], &rows, "(no resources)")
}

fn templates_table(style: &Style, templates: &[ResourceTemplate]) -> String {
    let rows = templates
        .iter()
        .map(|t| {
            let about = t.description.as_ref().or(t.title.as_ref());
            vec![t.uri_template.clone(), t.name.clone(), t.mime_type.clone().unwrap_or_default(), summary(about)]
        })
        .collect::<Vec<_>>();
    table(style, &["URI TEMPLATE", "NAME", "TYPE", "DESCRIPTION"], &rows, "(no resource templates)")
}

fn prompts_table(style: &Style, prompts: &[Prompt]) -> String {
    let rows = prompts
        .iter()
        .map(|p| vec![p.name.clone(), prompt_signature(p), summary(p.description.as_ref().or(p.title.as_ref()))])
        .collect::<Vec<_>>();
    table(style, &["NAME", "ARGUMENTS", "DESCRIPTION"], &rows, "(no prompts)")
}

/// Columns padded to their widest cell (the last one is not padded); empty columns are left out.
fn table(style: &Style, headers: &[&str], rows: &[Vec<String>], empty: &str) -> String {
    if rows.is_empty() {
        return format!("{}\n", style.dim(empty));
    }
    let shown: Vec<usize> = (0..headers.len()).filter(|&c| rows.iter().any(|r| !r[c].is_empty())).collect();
    let width = |c: usize| rows.iter().map(|r| r[c].chars().count()).chain([headers[c].len()]).max().unwrap_or(0);
    let widths: Vec<usize> = shown.iter().map(|&c| width(c)).collect();
    let line = |cells: Vec<String>, paint: &dyn Fn(usize, &str) -> String| {
        let mut line = String::new();
        for (i, (&c, cell)) in shown.iter().zip(&cells).enumerate() {
            let last = i + 1 == shown.len();
            let pad = if last { 0 } else { widths[i].saturating_sub(cell.chars().count()) + 2 };
            line.push_str(&paint(c, cell));
            line.push_str(&" ".repeat(pad));
        }
        line.trim_end().to_owned() + "\n"
    };
    let mut out = line(shown.iter().map(|&c| headers[c].to_owned()).collect(), &|_, h| style.dim(h));
    for row in rows {
        let cells = shown.iter().map(|&c| row[c].clone()).collect();
        out.push_str(&line(cells, &|c, cell| if c == 0 { style.name(cell) } else { cell.to_owned() }));
    }
    out
}

/// A description's first line.
fn summary(text: Option<&String>) -> String {
    text.and_then(|t| t.lines().map(str::trim).find(|l| !l.is_empty())).unwrap_or_default().to_owned()
}

/// A tool's arguments: `a, b, note?` (optional ones marked `?`).
fn signature(schema: &JsonObject) -> String {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return String::new() };
    let names: Vec<String> =
        properties.keys().map(|k| if required.contains(&k.as_str()) { k.clone() } else { format!("{k}?") }).collect();
    names.join(", ")
}

fn prompt_signature(prompt: &Prompt) -> String {
    let names: Vec<String> = prompt
        .arguments
        .iter()
        .flatten()
        .map(|a| if a.required == Some(true) { a.name.clone() } else { format!("{}?", a.name) })
        .collect();
    names.join(", ")
}

/// A tool's result: each text block as text, other blocks described, structured content as pretty JSON (a
/// text block that only repeats it is not shown twice).
pub fn tool_result(style: &Style, result: &CallToolResult) -> String {
    let mut out = String::new();
    for block in &result.content {
        if let (ContentBlock::Text(text), Some(structured)) = (block, &result.structured_content)
            && serde_json::from_str::<Value>(&text.text).is_ok_and(|v| v == **structured)
        {
            continue;
        }
        push_line(&mut out, &block_text(style, block));
    }
    if let Some(structured) = &result.structured_content {
        push_line(&mut out, &pretty(structured));
    }
    out
}

/// A tool's failure, for stderr.
pub fn tool_error(tool: &str, result: &CallToolResult) -> String {
    let texts: Vec<&str> = result.content.iter().filter_map(ContentBlock::as_text).collect();
    let why =
        if texts.is_empty() { serde_json::to_string(&result.content).unwrap_or_default() } else { texts.join("\n") };
    format!("fastmcp: tool `{tool}` failed: {why}\n")
}

fn block_text(style: &Style, block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(media) => {
            style.dim(&format!("[image {}, {} bytes]", media.mime_type, decoded_len(&media.data)))
        }
        ContentBlock::Audio(media) => {
            style.dim(&format!("[audio {}, {} bytes]", media.mime_type, decoded_len(&media.data)))
        }
        ContentBlock::ResourceLink(link) => {
            let about = link.description.as_ref().map(|d| format!(" — {}", summary(Some(d)))).unwrap_or_default();
            format!("{} {} ({}){about}", style.dim("[resource]"), link.uri, link.name)
        }
        ContentBlock::Resource(embedded) => contents_text(style, &embedded.resource),
    }
}

fn contents_text(style: &Style, contents: &ResourceContents) -> String {
    match contents {
        ResourceContents::Text(text) => text.text.clone(),
        ResourceContents::Blob(blob) => {
            let mime = blob.mime_type.as_deref().unwrap_or("binary");
            style.dim(&format!("[{} {mime}, {} bytes]", blob.uri, decoded_len(&blob.blob)))
        }
    }
}

fn decoded_len(base64: &str) -> usize {
    let data = base64.trim_end_matches('=').len();
    data * 3 / 4
}

/// One binary resource's bytes (for a pipe or a file), if that is what was read.
pub fn lone_blob(read: &ReadResourceResult) -> Option<Vec<u8>> {
    match &read.contents[..] {
        [ResourceContents::Blob(blob)] => base64::engine::general_purpose::STANDARD.decode(&blob.blob).ok(),
        _ => None,
    }
}

/// A resource's contents: the text of each (each under its URI when there are several).
pub fn resource(style: &Style, read: &ReadResourceResult) -> String {
    let mut out = String::new();
    let several = read.contents.len() > 1;
    for contents in &read.contents {
        if several {
            let mime = match contents {
                ResourceContents::Text(t) => t.mime_type.as_deref(),
                ResourceContents::Blob(b) => b.mime_type.as_deref(),
            };
            let mime = mime.map(|m| format!(" ({m})")).unwrap_or_default();
            push_line(&mut out, &style.heading(&format!("{}{mime}", contents.uri())));
        }
        push_line(&mut out, &contents_text(style, contents));
    }
    out
}

/// A prompt's messages, each under its role.
pub fn prompt(style: &Style, got: &GetPromptResult) -> String {
    let mut out = String::new();
    if let Some(description) = &got.description {
        push_line(&mut out, &style.dim(description));
    }
    for message in &got.messages {
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        push_line(&mut out, &style.heading(role));
        push_line(&mut out, &block_text(style, &message.content));
    }
    out
}

/// `inspect`: the server, its protocol and capabilities, then every tool, resource, template and prompt.
pub fn inspection(style: &Style, seen: &Inspection) -> String {
    let mut out = String::new();
    let label = |text: &str| style.bold(&format!("{text:<14}"));
    let server = match &seen.server_info {
        Some(info) => {
            let title = info.title.as_ref().map(|t| format!(" — {t}")).unwrap_or_default();
            format!("{} {}{title}", info.name, info.version)
        }
        None => style.dim("(the modern protocol has no handshake to name it)"),
    };
    let _ = writeln!(out, "{}{server}", label("Server"));
    let _ = writeln!(out, "{}{} ({})", label("Protocol"), seen.protocol_version, era_name(seen.era));
    let _ = writeln!(out, "{}", style.bold("Capabilities"));
    let capabilities = serde_json::to_value(&seen.capabilities).unwrap_or_default();
    match capabilities.as_object() {
        Some(caps) if !caps.is_empty() => {
            for (name, value) in caps {
                let detail = match value {
                    Value::Object(o) if o.is_empty() => String::new(),
                    other => other.to_string(),
                };
                let _ = writeln!(out, "{}", format!("  {name:<12}{detail}").trim_end());
            }
        }
        _ => {
            let _ = writeln!(out, "  {}", style.dim("(none)"));
        }
    }
    if let Some(instructions) = &seen.instructions {
        let _ = writeln!(out, "{}", style.bold("Instructions"));
        let _ = writeln!(out, "{}", indent(instructions, "  "));
    }
    if let Some(tools) = &seen.listed.tools {
        section(&mut out, style, "Tools", tools.len());
        for tool in tools {
            let mut hints = Vec::new();
            if let Some(a) = &tool.annotations {
                let flags = [
                    (a.read_only_hint, "read-only"),
                    (a.destructive_hint, "destructive"),
                    (a.idempotent_hint, "idempotent"),
                    (a.open_world_hint, "open-world"),
                ];
                hints.extend(flags.iter().filter(|(on, _)| *on == Some(true)).map(|(_, name)| *name));
            }
            entry(&mut out, style, &tool.name, tool.title.as_deref(), tool.description.as_deref(), &hints);
            let _ = writeln!(
                out,
                "    input schema:\n{}",
                indent(&pretty(&Value::Object(tool.input_schema.clone())), "      ")
            );
            if let Some(output) = &tool.output_schema {
                let _ =
                    writeln!(out, "    output schema:\n{}", indent(&pretty(&Value::Object(output.clone())), "      "));
            }
        }
    }
    if let Some(resources) = &seen.listed.resources {
        section(&mut out, style, "Resources", resources.len());
        for r in resources {
            let extra: Vec<&str> =
                [Some(r.name.as_str()).filter(|n| *n != r.uri), r.mime_type.as_deref()].into_iter().flatten().collect();
            entry(&mut out, style, &r.uri, r.title.as_deref(), r.description.as_deref(), &extra);
        }
    }
    if let Some(templates) = &seen.listed.templates {
        section(&mut out, style, "Resource templates", templates.len());
        for t in templates {
            let extra: Vec<&str> = [Some(t.name.as_str()), t.mime_type.as_deref()].into_iter().flatten().collect();
            entry(&mut out, style, &t.uri_template, t.title.as_deref(), t.description.as_deref(), &extra);
        }
    }
    if let Some(prompts) = &seen.listed.prompts {
        section(&mut out, style, "Prompts", prompts.len());
        for p in prompts {
            entry(&mut out, style, &p.name, p.title.as_deref(), p.description.as_deref(), &[]);
            for a in p.arguments.iter().flatten() {
                let required = if a.required == Some(true) { " (required)" } else { "" };
                let about = a.description.as_ref().map(|d| format!(": {}", summary(Some(d)))).unwrap_or_default();
                let _ = writeln!(out, "    {}{required}{about}", a.name);
            }
        }
    }
    out
}

fn section(out: &mut String, style: &Style, title: &str, n: usize) {
    let _ = writeln!(out, "\n{}", style.heading(&format!("{title} ({n})")));
    if n == 0 {
        let _ = writeln!(out, "  {}", style.dim("(none)"));
    }
}

/// `  name "title" (extra): description`, then any further lines of the description, indented.
fn entry(out: &mut String, style: &Style, name: &str, title: Option<&str>, description: Option<&str>, extra: &[&str]) {
    let title = title.map(|t| format!(" \"{t}\"")).unwrap_or_default();
    let extra =
        if extra.is_empty() { String::new() } else { format!(" {}", style.dim(&format!("({})", extra.join(", ")))) };
    let mut lines = description.unwrap_or_default().trim().lines();
    let first = lines.next().map(|l| format!(": {l}")).unwrap_or_default();
    let _ = writeln!(out, "  {}{title}{extra}{first}", style.name(name));
    for line in lines {
        let _ = writeln!(out, "    {line}");
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}")).collect::<Vec<_>>().join("\n")
}

/// Appends `text` as a line (a newline added unless it ends with one).
fn push_line(out: &mut String, text: &str) {
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, schema: Value, description: &str) -> Tool {
        serde_json::from_value(json!({"name": name, "inputSchema": schema, "description": description})).unwrap()
    }

    #[test]
    fn tables_align_and_mark_optional_arguments() {
        let tools = [
            tool("greet", json!({"properties": {"name": {}}, "required": ["name"]}), "Greet someone.\nMore."),
            tool("add_numbers", json!({"properties": {"a": {}, "b": {}}, "required": ["a"]}), "Add."),
        ];
        let listed = Listed { tools: Some(tools.to_vec()), ..Listed::default() };
        assert_eq!(
            lists(&Style::plain(), &listed),
            "NAME         ARGUMENTS  DESCRIPTION\n\
             greet        name       Greet someone.\n\
             add_numbers  a, b?      Add.\n"
        );
        let none = Listed { tools: Some(Vec::new()), prompts: Some(Vec::new()), ..Listed::default() };
        assert_eq!(lists(&Style::plain(), &none), "Tools (0)\n(no tools)\n\nPrompts (0)\n(no prompts)\n");
    }

    #[test]
    fn structured_content_is_not_shown_twice() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [{"type": "text", "text": "{\"sum\":42}"}, {"type": "text", "text": "and more"}],
            "structuredContent": {"sum": 42},
        }))
        .unwrap();
        assert_eq!(tool_result(&Style::plain(), &result), "and more\n{\n  \"sum\": 42\n}\n");
    }
}
