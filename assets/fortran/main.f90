! main - call every routine of the two libraries, check each result against the
! intrinsic or a known value, and print the results and a verdict (mixed.fortran).
program main
  implicit none
  integer :: iabs2, ipow, isqrt, igcd
  double precision :: fsqrt, fexp
  integer :: i, bad, isum, gsum
  double precision :: rsum, err
  bad = 0
  isum = 0
  gsum = 0
  rsum = 0.0d0
  do i = -500, 500
    if (iabs2(i) /= abs(i)) bad = bad + 1
  end do
  do i = 0, 20000
    if (isqrt(i) * isqrt(i) > i .or. (isqrt(i) + 1) * (isqrt(i) + 1) <= i) bad = bad + 1
    isum = isum + isqrt(i)
  end do
  do i = 1, 2000
    gsum = gsum + igcd(i, 360)
    if (mod(i, igcd(i, 360)) /= 0 .or. mod(360, igcd(i, 360)) /= 0) bad = bad + 1
  end do
  ! Fermat: 2**(p-1) = 1 modulo a prime p.
  if (ipow(2, 1008, 1009) /= 1) bad = bad + 1
  if (ipow(3, 5, 1000) /= 243) bad = bad + 1
  do i = 1, 1000
    err = abs(fsqrt(dble(i)) - sqrt(dble(i)))
    if (err > 1.0d-9) bad = bad + 1
    rsum = rsum + fsqrt(dble(i))
  end do
  do i = -20, 20
    err = abs(fexp(dble(i) / 4.0d0) - exp(dble(i) / 4.0d0)) / exp(dble(i) / 4.0d0)
    if (err > 1.0d-9) bad = bad + 1
  end do
  call putint('isqrt sum', isum)
  call putint('gcd sum', gsum)
  call putint('2**1008 mod 1009', ipow(2, 1008, 1009))
  call putreal('sqrt sum', rsum)
  call putreal('exp(1)', fexp(1.0d0))
  call putint('failed checks', bad)
  if (bad == 0) then
    call putline('fortran library check: ok')
  else
    call putline('fortran library check: FAILED')
  end if
end program main
