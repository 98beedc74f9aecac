! ipow - i to the power n (n >= 0) by repeated squaring, modulo m (m > 0).
integer function ipow(i, n, m)
  implicit none
  integer, intent(in) :: i, n, m
  integer(kind=8) :: base, acc
  integer :: k
  base = modulo(int(i, 8), int(m, 8))
  acc = 1
  k = n
  do while (k > 0)
    if (mod(k, 2) == 1) acc = modulo(acc * base, int(m, 8))
    base = modulo(base * base, int(m, 8))
    k = k / 2
  end do
  ipow = int(acc)
end function ipow
