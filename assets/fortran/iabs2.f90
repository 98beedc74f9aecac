! iabs2 - the absolute value of an integer, as the builtin IABS.
integer function iabs2(i)
  implicit none
  integer, intent(in) :: i
  if (i < 0) then
    iabs2 = -i
  else
    iabs2 = i
  end if
end function iabs2
