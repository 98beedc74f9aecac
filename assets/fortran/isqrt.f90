! isqrt - the integer square root of n >= 0 by Newton's method: the largest r, r*r <= n.
integer function isqrt(n)
  implicit none
  integer, intent(in) :: n
  integer(kind=8) :: x, y
  if (n < 2) then
    isqrt = n
    return
  end if
  x = n
  y = (x + 1) / 2
  do while (y < x)
    x = y
    y = (x + n / x) / 2
  end do
  isqrt = int(x)
end function isqrt
