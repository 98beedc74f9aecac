! fexp - e to the power x by its series after halving x until it is small, as EXP.
double precision function fexp(x)
  implicit none
  double precision, intent(in) :: x
  double precision :: y, term, s
  integer :: halvings, k
  y = x
  halvings = 0
  do while (abs(y) > 0.5d0)
    y = y / 2.0d0
    halvings = halvings + 1
  end do
  s = 1.0d0
  term = 1.0d0
  do k = 1, 30
    term = term * y / k
    s = s + term
  end do
  do k = 1, halvings
    s = s * s
  end do
  fexp = s
end function fexp
