! fsqrt - the square root of x >= 0 by Newton's method, as the builtin SQRT.
double precision function fsqrt(x)
  implicit none
  double precision, intent(in) :: x
  double precision :: r
  integer :: k
  if (x <= 0.0d0) then
    fsqrt = 0.0d0
    return
  end if
  r = max(x, 1.0d0)
  do k = 1, 200
    r = 0.5d0 * (r + x / r)
  end do
  fsqrt = r
end function fsqrt
