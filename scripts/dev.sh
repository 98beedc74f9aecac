# A developer at work today: version control, a compiler, archives, searching and
# sorting, and a scripting language if there is one. A modern companion to the 1975
# user (user1975.sh); same format: one command per line, `?cmd` optional, `@file`
# blocks created before the script starts (see user1975.sh for the rules).

@file src/stats.c
#include <stdio.h>
#include "stats.h"

double mean(const double *v, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : 0;
}
@end

@file src/stats.h
double mean(const double *v, int n);
@end

@file src/main.c
#include <stdio.h>
#include "stats.h"

int main(void)
{
	double v[100];
	for (int i = 0; i < 100; i++)
		v[i] = i * 0.5;
	printf("%.2f\n", mean(v, 100));
	return 0;
}
@end

@file data.txt
pear 3
apple 7
fig 2
quince 9
banana 4
cherry 1
date 8
elderberry 5
grape 6
kiwi 10
@end

@file report.py
import collections
words = collections.Counter()
for name in ["data.txt", "src/main.c", "src/stats.c"]:
    with open(name) as f:
        for line in f:
            words.update(line.split())
print(sum(words.values()), len(words))
@end

git init -q
git add .
git -c user.name=timeshare -c user.email=timeshare@localhost commit -q -m "first version"
cc -O2 -c src/stats.c -o stats.o
cc -O2 -c src/main.c -o main.o
cc -o app main.o stats.o
./app
grep -rn mean src
find . -name "*.c" | sort
sort -k2 -n data.txt > sorted.txt
sort data.txt | uniq -c > counted.txt
wc -l data.txt sorted.txt counted.txt
sed -i "s/100/200/" src/main.c
git diff --stat
git -c user.name=timeshare -c user.email=timeshare@localhost commit -q -am "more values"
git log --oneline
cc -O2 -c src/main.c -o main.o
cc -o app main.o stats.o
./app
tar czf src.tar.gz src
gzip -k data.txt
gzip -t data.txt.gz
mkdir unpack
tar xzf src.tar.gz -C unpack
diff -r src unpack/src
?python3 report.py
ls -la
du -sh .
rm -r unpack src.tar.gz data.txt.gz app main.o stats.o
git status --short
