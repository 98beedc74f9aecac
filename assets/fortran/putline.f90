! putline - print a line of text.
subroutine putline(text)
  implicit none
  character(len=*), intent(in) :: text
  write (*, '(A)') text
end subroutine putline
