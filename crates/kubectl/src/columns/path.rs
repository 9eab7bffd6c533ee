//! A JSONPath expression as kubectl reads one, and its evaluation on a
//! JSON value (see the module above for what it reads).

use std::cmp::Ordering;

use serde_json::Value;

/// The most values one step of an evaluation keeps: a spec comes from a
/// link, and `..` over `..` must not freeze the tab.
pub const MAX_VALUES: usize = 1_000;

/// The most `..` one expression may hold.
pub const MAX_DESCENTS: usize = 2;

/// Why an expression does not read, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathError {
    /// The character offset in the expression as written.
    pub at: usize,
    /// What is wrong there.
    pub message: String,
}

/// A comparison in a filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A field of an object.
    Field(String),
    /// Fields one inside the other (a quoted key, `['a.b']`).
    Fields(Vec<String>),
    /// Every value of an object or item of a list.
    Wildcard,
    /// One item (negative: from the end).
    Index(i64),
    /// Items from, to (exclusive), by.
    Slice(Option<i64>, Option<i64>, i64),
    /// Several steps' results, in order.
    Union(Vec<Step>),
    /// The step applied at this value and every value under it.
    Descend(Box<Step>),
    /// The items whose `path` has a result (no op) or one that compares.
    Filter(Vec<Step>, Option<(Op, Value)>),
}

/// A read expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    steps: Vec<Step>,
}

struct Reader<'a> {
    chars: Vec<char>,
    pos: usize,
    /// How many `..` read so far.
    descents: usize,
    /// Where `chars` starts in the expression as written.
    offset: usize,
    _text: &'a str,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }
    fn fail<T>(&self, at: usize, message: impl Into<String>) -> Result<T, PathError> {
        Err(PathError {
            at: self.offset + at,
            message: message.into(),
        })
    }
    /// A field's name, up to the next step or operator; `\` takes the
    /// next character as it is (`labels.app\.kubernetes\.io/name`).
    fn name(&mut self) -> String {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if matches!(c, '.' | '[' | ' ' | '=' | '!' | '<' | '>' | ')') {
                break;
            }
            self.pos += 1;
            if c == '\\' {
                if let Some(next) = self.peek() {
                    out.push(next);
                    self.pos += 1;
                }
                continue;
            }
            out.push(c);
        }
        out
    }

    /// Steps until the end, or (in a filter) until a space, an operator or
    /// the closing parenthesis.
    fn steps(&mut self, in_filter: bool) -> Result<Vec<Step>, PathError> {
        let mut steps = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                '.' if self.chars.get(self.pos + 1) == Some(&'.') => {
                    let at = self.pos;
                    self.pos += 2;
                    let step = self.one_step()?;
                    if step == Step::Wildcard {
                        return self.fail(at, "kubectl does not read ..* (name a field after ..)");
                    }
                    self.descents += 1;
                    if self.descents > MAX_DESCENTS {
                        return self
                            .fail(at, format!("at most {MAX_DESCENTS} .. in one expression"));
                    }
                    steps.push(Step::Descend(Box::new(step)));
                }
                '.' => {
                    self.pos += 1;
                    if matches!(self.peek(), None | Some('[')) {
                        continue;
                    }
                    steps.push(self.one_step()?);
                }
                '[' => steps.push(self.bracket()?),
                _ if in_filter => break,
                c => return self.fail(self.pos, format!("unexpected {c:?}")),
            }
        }
        Ok(steps)
    }

    /// The step after `.` or `..`: a name, `*` or a bracket.
    fn one_step(&mut self) -> Result<Step, PathError> {
        match self.peek() {
            Some('*') => {
                self.pos += 1;
                Ok(Step::Wildcard)
            }
            Some('[') => self.bracket(),
            _ => {
                let at = self.pos;
                let name = self.name();
                if name.is_empty() {
                    return self.fail(at, "expected a field name");
                }
                Ok(Step::Field(name))
            }
        }
    }

    /// `[…]`: `*`, `?(…)`, quoted names, indexes, a slice.
    fn bracket(&mut self) -> Result<Step, PathError> {
        let open = self.pos;
        self.pos += 1;
        // The closing bracket, outside quotes and parentheses.
        let (mut depth, mut quote, mut end) = (0, None, None);
        for (i, &c) in self.chars.iter().enumerate().skip(self.pos) {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '(') => depth += 1,
                (None, ')') => depth -= 1,
                (None, ']') if depth == 0 => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            return self.fail(open, "this [ is never closed");
        };
        let inner: String = self.chars[self.pos..end].iter().collect();
        let at = self.pos;
        self.pos = end + 1;
        let inner_trim = inner.trim();
        if inner_trim == "*" {
            return Ok(Step::Wildcard);
        }
        if let Some(f) = inner_trim.strip_prefix('?') {
            return self.filter(f, at + inner.find('?').unwrap_or(0) + 1);
        }
        let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
        let mut steps = Vec::new();
        for part in &parts {
            steps.push(self.index_or_name(part, at)?);
        }
        Ok(if steps.len() == 1 {
            steps.remove(0)
        } else {
            Step::Union(steps)
        })
    }

    fn index_or_name(&self, part: &str, at: usize) -> Result<Step, PathError> {
        let quoted = |q: char| part.len() >= 2 && part.starts_with(q) && part.ends_with(q);
        if quoted('\'') || quoted('"') {
            // kubectl reads ['a.b'] as .a.b; ['a\.b'] is the one key.
            return Ok(Step::Fields(split_fields(&part[1..part.len() - 1])));
        }
        let number = |s: &str| -> Result<Option<i64>, PathError> {
            let s = s.trim();
            if s.is_empty() {
                return Ok(None);
            }
            s.parse().map(Some).or_else(|_| {
                self.fail(
                    at,
                    format!("{s:?} is not a number, a quoted name, * or ?(…)"),
                )
            })
        };
        if part.contains(':') {
            let bits: Vec<&str> = part.split(':').collect();
            if bits.len() > 3 {
                return self.fail(at, "a slice is [from:to:step]");
            }
            let step = number(bits.get(2).copied().unwrap_or(""))?.unwrap_or(1);
            if step <= 0 {
                return self.fail(at, "a slice's step must be positive");
            }
            return Ok(Step::Slice(number(bits[0])?, number(bits[1])?, step));
        }
        match number(part)? {
            Some(i) => Ok(Step::Index(i)),
            None => self.fail(at, "an empty []"),
        }
    }

    /// `?(@.path)` or `?(@.path op literal)`; `at` is where `(` is.
    fn filter(&mut self, text: &str, at: usize) -> Result<Step, PathError> {
        let t = text.trim();
        let Some(body) = t.strip_prefix('(').and_then(|b| b.strip_suffix(')')) else {
            return self.fail(at, "a filter is ?(@.field op value)");
        };
        let body = body.trim();
        let Some(rest) = body.strip_prefix('@') else {
            return self.fail(at + 1, "a filter starts with @");
        };
        let mut inner = Reader {
            chars: rest.chars().collect(),
            pos: 0,
            descents: self.descents,
            offset: self.offset + at + 2,
            _text: rest,
        };
        let path = inner.steps(true)?;
        let tail: String = inner.chars[inner.pos..].iter().collect();
        let tail = tail.trim();
        if tail.is_empty() {
            return Ok(Step::Filter(path, None));
        }
        let ops = [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("<", Op::Lt),
            (">", Op::Gt),
        ];
        let Some((sym, op)) = ops.iter().find(|(s, _)| tail.starts_with(s)) else {
            return inner.fail(
                inner.pos,
                format!("expected ==, !=, <, <=, > or >= before {tail:?}"),
            );
        };
        let literal = tail[sym.len()..].trim();
        let value = if literal.len() >= 2
            && ((literal.starts_with('"') && literal.ends_with('"'))
                || (literal.starts_with('\'') && literal.ends_with('\'')))
        {
            Value::String(literal[1..literal.len() - 1].to_string())
        } else {
            serde_json::from_str(literal).or_else(|_| {
                inner.fail(
                    inner.pos,
                    format!("{literal:?} is not a quoted string, a number, true or false"),
                )
            })?
        };
        Ok(Step::Filter(path, Some((*op, value))))
    }
}

impl Path {
    /// Reads `text` as kubectl's custom columns do: `{.a.b}`, `.a.b` and
    /// `a.b` are the same expression.
    pub fn parse_relaxed(text: &str) -> Result<Path, PathError> {
        let mut inner = text.trim();
        let mut offset = text.len() - text.trim_start().len();
        if let Some(rest) = inner.strip_prefix('{') {
            inner = rest.strip_suffix('}').unwrap_or(rest);
            offset += 1;
        }
        let leading = !inner.starts_with('.') && !inner.starts_with('[');
        let mut reader = Reader {
            chars: inner.chars().collect(),
            pos: 0,
            descents: 0,
            offset,
            _text: inner,
        };
        if leading {
            if inner.is_empty() {
                return reader.fail(0, "an empty expression");
            }
            reader.chars.insert(0, '.');
            reader.offset = offset.saturating_sub(1);
        }
        Ok(Path {
            steps: reader.steps(false)?,
        })
    }

    /// Every value the path reaches in `root`, in order.
    pub fn eval<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        eval_steps(&self.steps, vec![root])
    }
}

fn eval_steps<'a>(steps: &[Step], mut at: Vec<&'a Value>) -> Vec<&'a Value> {
    for step in steps {
        at = at
            .into_iter()
            .flat_map(|v| apply(step, v))
            .take(MAX_VALUES)
            .collect();
    }
    at
}

/// A key with its `\` escapes undone, split at the dots they do not escape.
fn split_fields(key: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = key.chars();
    while let Some(c) = chars.next() {
        let c = match c {
            '.' => {
                out.push(String::new());
                continue;
            }
            '\\' => match chars.next() {
                Some(n) => n,
                None => break,
            },
            c => c,
        };
        if let Some(field) = out.last_mut() {
            field.push(c);
        }
    }
    out
}

/// An object's values in key order, or a list's items.
fn children(v: &Value) -> Vec<&Value> {
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            keys.into_iter().map(|k| &o[k]).collect()
        }
        Value::Array(a) => a.iter().collect(),
        _ => Vec::new(),
    }
}

/// `v` and every value under it, each before its children.
fn all_under(v: &Value) -> Vec<&Value> {
    let mut out = vec![v];
    for c in children(v) {
        out.extend(all_under(c));
    }
    out
}

fn apply<'a>(step: &Step, v: &'a Value) -> Vec<&'a Value> {
    match step {
        Step::Field(name) => v.get(name.as_str()).into_iter().collect(),
        Step::Fields(names) => names
            .iter()
            .try_fold(v, |v, n| v.get(n.as_str()))
            .into_iter()
            .collect(),
        Step::Wildcard => children(v),
        Step::Index(i) => {
            let Value::Array(a) = v else {
                return Vec::new();
            };
            let i = if *i < 0 { *i + a.len() as i64 } else { *i };
            usize::try_from(i)
                .ok()
                .and_then(|i| a.get(i))
                .into_iter()
                .collect()
        }
        Step::Slice(from, to, by) => {
            let Value::Array(a) = v else {
                return Vec::new();
            };
            let n = a.len() as i64;
            let clamp = |x: i64| (if x < 0 { x + n } else { x }).clamp(0, n) as usize;
            let (from, to) = (clamp(from.unwrap_or(0)), clamp(to.unwrap_or(n)));
            (from..to.max(from))
                .step_by(*by as usize)
                .map(|i| &a[i])
                .collect()
        }
        Step::Union(steps) => steps.iter().flat_map(|s| apply(s, v)).collect(),
        Step::Descend(step) => all_under(v)
            .into_iter()
            .flat_map(|u| apply(step, u))
            .collect(),
        Step::Filter(path, test) => {
            let Value::Array(a) = v else {
                return Vec::new();
            };
            a.iter()
                .filter(|item| {
                    let found = eval_steps(path, vec![item]);
                    match test {
                        None => !found.is_empty(),
                        Some((op, want)) => found.iter().any(|f| compares(f, *op, want)),
                    }
                })
                .collect()
        }
    }
}

fn compares(got: &Value, op: Op, want: &Value) -> bool {
    let order = match (got, want) {
        (Value::Number(a), Value::Number(b)) => a
            .as_f64()
            .zip(b.as_f64())
            .and_then(|(a, b)| a.partial_cmp(&b)),
        (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
        (a, b) if a == b => Some(Ordering::Equal),
        _ => None,
    };
    match (op, order) {
        (Op::Ne, None) => true,
        (_, None) => false,
        (Op::Eq, Some(o)) => o == Ordering::Equal,
        (Op::Ne, Some(o)) => o != Ordering::Equal,
        (Op::Lt, Some(o)) => o == Ordering::Less,
        (Op::Le, Some(o)) => o != Ordering::Greater,
        (Op::Gt, Some(o)) => o == Ordering::Greater,
        (Op::Ge, Some(o)) => o != Ordering::Less,
    }
}
