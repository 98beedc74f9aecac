! igcd - the greatest common divisor of a and b by Euclid's algorithm.
integer function igcd(a, b)
  implicit none
  integer, intent(in) :: a, b
  integer :: x, y, t
  x = abs(a)
  y = abs(b)
  do while (y /= 0)
    t = mod(x, y)
    x = y
    y = t
  end do
  igcd = x
end function igcd
