! putreal - print a name and a real to 6 decimal places on one line.
subroutine putreal(name, x)
  implicit none
  character(len=*), intent(in) :: name
  double precision, intent(in) :: x
  write (*, '(A, 1X, F0.6)') name, x
end subroutine putreal
