# The 1975 user: seed 000's command script (Brandt & Thompson, Bell Labs), rebuilt from
# Attachment C's shell accounting. Per script the seed ran 104 commands: ed 18, sh 12,
# ls 12, cat 10, rm 8, cp 6, cc 4, pr 4, du 4, mv 4, nroff|col 2 (accounted as "gok"
# and "colv"), and 2 each of ps, grep, pwd, rmdir, who, echo, mkdir, date, chmod.
# Here: two identical sessions of 51 lines each (the nroff | col pipeline is one line, so
# 102 lines make the seed's 104 processes), working on files this script creates.
#
# Format (timeshare's command scripts): one command per line, run by timeshare itself in
# the user's own directory and accounted from the kernel's wait4 figures. Lines with
# pipes, quotes, globs or `;` go through `sh -c`; simple `< file`, `> file`, `>> file`
# are done by timeshare. `?cmd` runs cmd only if it is installed (an absent optional
# command is noted, not a failure). `@file NAME` … `@end` creates NAME before the script
# starts (not timed). Blank lines and lines starting with `#` are ignored.

@file memo
Memorandum for file.
The machine was moved to the new room on Monday, and the disks were
checked by the field engineer before the users came back.  The
response time of the system was measured during the afternoon, with
the usual number of users logged in, and was found to be as good as
before the move.  The line printer still needs a new ribbon.
Please send comments on the new accounting reports to the author.
@end

@file notes
notes on the benchmark
1. run the cpu bound program alone
2. run it with two, five, ten and fifteen copies
3. start the command scripts fifteen seconds apart
4. collect the shell accounting file
5. compare the 11/45 and the 11/70
@end

@file prog.c
#include <stdio.h>

#define TIMES 300

static int table[64];

static int step(int x)
{
	return (x * 31 + 7) % 1009;
}

int main(void)
{
	int i, j, sum = 0;

	for (i = 0; i < TIMES; i++)
		for (j = 0; j < 64; j++) {
			table[j] = step(table[j] + i);
			sum += table[j];
		}
	printf("%d\n", sum);
	return 0;
}
@end

@file doc.nr
.ll 60
.ce
THE NEW ROOM
.sp
The machine has been moved.
Users will find the terminals where they were,
and the printer beside the door.
.sp
.ti 5
Response time was measured after the move and is as good as before.
Questions go to the operators.
@end

@file add.ed
$a
another line added at the terminal
.
w
q
@end

@file cut.ed
$d
w
q
@end

@file move.ed
1m$
w
q
@end

@file times.ed
/TIMES/s/[0-9][0-9]*/200/
w
q
@end

@file times2.ed
/TIMES/s/[0-9][0-9]*/300/
w
q
@end

@file doc.ed
/Questions/s/operators/the operators/
/the the operators/s/the the/the/
w
q
@end

@file count.sh
wc -l memo notes > counts
grep -c the memo >> counts
@end

# ---- first session ----
date
who
pwd
ls
ls -l
cat memo
ed -s memo < add.ed
ed -s memo < move.ed
cp memo memo.bak
mkdir old
mv memo.bak old/memo.bak
ls old
ed -s prog.c < times.ed
cc -o prog prog.c
ed -s prog.c < times2.ed
cc -c prog.c
ls -l
rm prog.o
cat memo notes > both
pr both > both.pr
rm both
ed -s notes < add.ed
sh count.sh
sh count.sh
grep -c the memo
ed -s notes < cut.ed
cat notes
ls
sh count.sh
nroff doc.nr | col -b > doc.out
cat doc.out
du
du -s old
ed -s memo < cut.ed
pr -2 memo > memo.pr
cp memo.pr old/memo.pr
cat old/memo.pr
ed -s doc.nr < doc.ed
sh count.sh
ls -a
mv old/memo.bak memo.old
rm memo.pr old/memo.pr both.pr memo.old
rmdir old
ed -s memo < move.ed
echo session done
chmod 644 memo
cp prog.c prog.bak
ps
sh count.sh
sh count.sh
rm doc.out prog prog.bak

# ---- second session ----
date
who
pwd
ls
ls -l
cat memo
ed -s memo < add.ed
ed -s memo < move.ed
cp memo memo.bak
mkdir old
mv memo.bak old/memo.bak
ls old
ed -s prog.c < times.ed
cc -o prog prog.c
ed -s prog.c < times2.ed
cc -c prog.c
ls -l
rm prog.o
cat memo notes > both
pr both > both.pr
rm both
ed -s notes < add.ed
sh count.sh
sh count.sh
grep -c the memo
ed -s notes < cut.ed
cat notes
ls
sh count.sh
nroff doc.nr | col -b > doc.out
cat doc.out
du
du -s old
ed -s memo < cut.ed
pr -2 memo > memo.pr
cp memo.pr old/memo.pr
cat old/memo.pr
ed -s doc.nr < doc.ed
sh count.sh
ls -a
mv old/memo.bak memo.old
rm memo.pr old/memo.pr both.pr memo.old
rmdir old
ed -s memo < move.ed
echo session done
chmod 644 memo
cp prog.c prog.bak
ps
sh count.sh
sh count.sh
rm doc.out prog prog.bak
