! putint - print a name and an integer on one line.
subroutine putint(name, i)
  implicit none
  character(len=*), intent(in) :: name
  integer, intent(in) :: i
  write (*, '(A, 1X, I0)') name, i
end subroutine putint
