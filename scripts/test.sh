#!/usr/bin/env bash
# The test command: installs what the tests need (as root on Debian or Ubuntu), then runs
# every test, the doc-tests included. `.ci/run` calls exactly this after its fmt, clippy and
# doc checks. Extra arguments go to `cargo test` (e.g. `scripts/test.sh --test it store::`).
#
# The doc-tests are the last test target cargo runs, and by default cargo stops at the
# first target that fails: one failing integration test used to mean the doc-tests never
# ran. `--no-fail-fast` runs every target and still exits non-zero if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."

# What the tests and the rows they run call, as "command Debian-package" pairs: the one
# list (`.ci/run` has none of its own). A path stands for a program off the user's PATH.
needs=(
  "setpriv util-linux"
  "taskset util-linux"
  "ed ed"
  "nroff groff-base"
  "col bsdextrautils"
  "cc gcc"
  "make make"
  # mixed.fortran's test builds its library and checks a corrupted routine is caught.
  "gfortran gfortran"
  "mkfs.ext4 e2fsprogs"
  "size binutils"
  "ps procps"
  "git git"
  # The BPF call counter (build.rs) and the test that sets its counts beside strace's.
  "clang clang"
  "strace strace"
  # The HTML report's rendering test.
  "chromium chromium"
  # The shared store's tests start a throw-away PostgreSQL cluster.
  "/usr/lib/postgresql/*/bin/pg_ctl postgresql"
  # The fleet test runs the Ansible playbook over ssh to an sshd of its own.
  "ansible-playbook ansible-core"
  "/usr/sbin/sshd openssh-server"
  "ssh openssh-client"
  "ssh-keygen openssh-client"
)

present() {
  case "$1" in
    /*) compgen -G "$1" >/dev/null ;;
    *) command -v "$1" >/dev/null ;;
  esac
}

missing_programs=()
missing_packages=()
for pair in "${needs[@]}"; do
  read -r program package <<<"$pair"
  if ! present "$program"; then
    missing_programs+=("$program")
    [[ " ${missing_packages[*]} " == *" $package "* ]] || missing_packages+=("$package")
  fi
done

if [ ${#missing_packages[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing ${missing_packages[*]}" >&2
    # Another apt-get may hold the lock for a while on a shared machine: wait for it.
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
      "${missing_packages[@]}"
  else
    echo "missing: ${missing_programs[*]}" >&2
    echo "install them first (Debian or Ubuntu, as root):" >&2
    echo "  apt-get install ${missing_packages[*]}" >&2
    echo "or run the tests anyway with \`cargo test --release --no-fail-fast\`:" >&2
    echo "those that need them will fail, naming what they miss" >&2
    exit 1
  fi
fi

exec cargo test --release --no-fail-fast "$@"
