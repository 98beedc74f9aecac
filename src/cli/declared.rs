//! `run`'s flags for the options that only some rows read, made from the families'
//! declarations (`crate::bench::options()`; see `crate::harness::options`): each flag's
//! `--help`, its values and its range, and the rows it is refused without, come from
//! there. No option and no row is named here.

use anyhow::Result;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};

use super::errors::UsageError;
use crate::harness::contract::Benchmark;
use crate::harness::options::RowOption;
use crate::model::RunOptions;

/// The words given for each declared option, as typed (a list's elements one by one).
#[derive(Debug, Default, Clone)]
pub struct RowArgs {
    given: Vec<(&'static str, Vec<String>)>,
}

/// Every declared option, family by family in catalogue order.
fn declared() -> impl Iterator<Item = &'static RowOption> {
    crate::bench::options()
        .into_iter()
        .flat_map(|family| family.options.iter())
}

/// The clap argument of a declared option: its words are checked by
/// [`RowArgs::apply`], so that a bad value is one line like every other usage error.
fn arg(o: &'static RowOption) -> Arg {
    let arg = Arg::new(o.name)
        .long(o.name)
        .value_name(o.value_name)
        .help(o.help_line())
        .value_parser(clap::value_parser!(String));
    if o.is_list() {
        arg.value_delimiter(',').action(ArgAction::Append)
    } else {
        arg.action(ArgAction::Set)
    }
}

impl Args for RowArgs {
    fn augment_args(cmd: Command) -> Command {
        cmd.args(declared().map(arg))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for RowArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let given = declared()
            .filter_map(|o| {
                let words = matches.get_many::<String>(o.name)?;
                Some((o.name, words.cloned().collect()))
            })
            .collect();
        Ok(RowArgs { given })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl RowArgs {
    /// Each given option's value, checked against its declaration, into `options`; then
    /// every family's check of the options as a whole (a working set larger than the
    /// machine, a memory limit above it). Before anything runs: a bad value is a
    /// [`UsageError`].
    pub fn apply(&self, options: &mut RunOptions) -> Result<()> {
        for o in declared() {
            if let Some(words) = self.words(o) {
                let value = o.parse(words).map_err(UsageError)?;
                (o.set)(options, value);
            }
        }
        for family in crate::bench::options() {
            if let Some(check) = family.check {
                check(options).map_err(UsageError)?;
            }
        }
        Ok(())
    }

    /// An option given for rows none of which is selected would be silently ignored:
    /// refuse it, saying which rows read it.
    pub fn check_read(&self, chosen: &[&Benchmark]) -> Result<()> {
        for o in declared().filter(|o| self.words(o).is_some()) {
            let read_by = |b: &&Benchmark| {
                o.read_by
                    .iter()
                    .any(|p| crate::bench::select::matches(p, b))
            };
            if !chosen.iter().any(read_by) {
                let flag = o.flag();
                return Err(UsageError(format!(
                    "{flag} applies only to the {} rows, and none is selected (select `{}` \
                     too, or leave {flag} out)",
                    o.read_by.join(", "),
                    o.read_by[0]
                ))
                .into());
            }
        }
        Ok(())
    }

    fn words(&self, o: &RowOption) -> Option<&[String]> {
        self.given
            .iter()
            .find(|(name, _)| *name == o.name)
            .map(|(_, words)| words.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        rows: RowArgs,
    }

    fn parsed(args: &[&str]) -> RowArgs {
        Cli::try_parse_from(std::iter::once("t").chain(args.iter().copied()))
            .unwrap()
            .rows
    }

    #[test]
    fn every_declaration_is_a_flag_with_its_help_and_rows() {
        use clap::CommandFactory;
        let cmd = Cli::command();
        cmd.clone().debug_assert();
        for o in declared() {
            let arg = cmd
                .get_arguments()
                .find(|a| a.get_long() == Some(o.name))
                .unwrap_or_else(|| panic!("{} is not a flag", o.flag()));
            let help = arg.get_help().unwrap().to_string();
            assert!(help.contains(o.help), "{help}");
            assert!(help.contains(o.read_by[0]), "{help}");
            assert!(!o.read_by.is_empty(), "{} is read by no row", o.flag());
        }
    }

    #[test]
    fn every_option_is_read_by_registered_rows() {
        let reg = crate::bench::Registry::with_defaults();
        for o in declared() {
            for word in o.read_by {
                assert!(
                    reg.benches()
                        .iter()
                        .any(|b| crate::bench::select::matches(word, b)),
                    "{} is declared read by `{word}`, which selects no row",
                    o.flag()
                );
            }
        }
    }

    #[test]
    fn a_list_may_be_split_by_commas_or_given_again() {
        let rows = parsed(&["--copies", "1,2", "--copies", "4"]);
        let mut options = RunOptions::default();
        rows.apply(&mut options).unwrap();
        assert_eq!(options.load.copies, [1, 2, 4]);
    }

    #[test]
    fn a_declared_range_is_enforced_from_the_declaration() {
        // Every bounded count and list of the declarations: its bounds pass, one past
        // them is refused with the range the declaration states.
        use crate::harness::options::Kind;
        let mut checked = 0;
        for o in declared() {
            let (min, max) = match o.kind {
                Kind::Count { min, max } | Kind::List { min, max } if max < u64::MAX => (min, max),
                _ => continue,
            };
            for ok in [min, max] {
                let rows = parsed(&[&o.flag(), &ok.to_string()]);
                rows.apply(&mut RunOptions::default())
                    .unwrap_or_else(|e| panic!("{} {ok}: {e}", o.flag()));
            }
            let past = (max + 1).to_string();
            let e = parsed(&[&o.flag(), &past])
                .apply(&mut RunOptions::default())
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(&format!("{} {past}: give", o.flag()))
                    && e.contains(&max.to_string()),
                "{e}"
            );
            checked += 1;
        }
        assert!(checked >= 4, "only {checked} bounded options declared");
    }
}
